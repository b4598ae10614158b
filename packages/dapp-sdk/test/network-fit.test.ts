import { parseEther } from 'ethers'
import { describe, expect, it } from 'vitest'
import { cannotFinishWarning } from '../src/cli/network-fit.js'
import type { BondableNodes, JobClient } from '../src/index.js'

/** A client that answers the two questions the warning asks (pure logic: the chain reads are tested elsewhere). */
function client (active: number, bondable: BondableNodes): JobClient {
  return {
    activeNodes: async () => active,
    bondableNodes: async () => bondable
  } as unknown as JobClient
}

const job = { k: 3, name: 'this job', unprocessed: true, matching: async () => undefined }

describe('submit\'s warning of a job this network cannot finish', () => {
  it('says when no known node could lock the bond of the job\'s results, with the bond and the largest free stake', async () => {
    const short = client(4, { bond: parseEther('2'), nodes: 0, largestFree: parseEther('1'), known: 4 })
    expect(await cannotFinishWarning(short, { ...job, fee: parseEther('1') })).toBe(
      'warning: no known node can submit the results of this job: that locks a bond of 2.0 ETH (from the fee), the largest ' +
      'free stake among the 4 known nodes is 1.0 ETH; the peers leave it alone (a lower price, or nodes with more stake)')
    // one node can: no warning; no node known: nothing can be told; a job already processed: its bond is locked
    expect(await cannotFinishWarning(client(4, { bond: 2n, nodes: 1, largestFree: 3n, known: 4 }), { ...job, fee: 1n })).toBeUndefined()
    expect(await cannotFinishWarning(client(4, { bond: 2n, nodes: 0, largestFree: 0n, known: 0 }), { ...job, fee: 1n })).toBeUndefined()
    expect(await cannotFinishWarning(short, { ...job, fee: parseEther('1'), unprocessed: false })).toBeUndefined()
    // too few active nodes is said first
    expect(await cannotFinishWarning(client(2, { bond: 2n, nodes: 0, largestFree: 0n, known: 2 }), { ...job, fee: 1n })).toMatch(/^warning: 2 nodes are active \(registered, not paused, exiting nor kicked out\), this job with 3 verifiers needs 4/)
  })
})
