import { registerNodes, startChain } from '@jobmesh/testkit/anvil'
import { waitFor } from '@jobmesh/testkit'
import { parseEther } from 'ethers'
import { afterEach, describe, expect, it } from 'vitest'
import { createPeer } from '../../src/peer.js'
import { verifierSupply } from '../../src/settlement/index.js'
import { fundJob } from './funded-job.js'
import type { Peer } from '../../src/peer.js'
import type { TestChain } from '@jobmesh/testkit/anvil'

let chain: TestChain | undefined
let peer: Peer | undefined

afterEach(async () => {
  await peer?.stop()
  peer = undefined
  await chain?.stop()
  chain = undefined
})

describe('verifierSupply', () => {
  it('a job needs k + 1 active nodes (its k verifiers besides its submitter); a job left alone is told once', async () => {
    chain = await startChain({ accounts: 5 })
    const waiting: Array<[string, number]> = []
    const grown: number[] = []
    const supply = verifierSupply({ chain: chain.clients[0] }, {
      onWaiting: (job, active) => { waiting.push([job.jobId, active]) },
      onGrowth: (active) => { grown.push(active) }
    })
    // before any read: nothing is held back on a count it does not know
    expect(supply.canVerify({ jobId: '0x01', verifiers: 2 })).toBe(true)
    expect(await supply.refresh()).toBe(0)
    expect(supply.canVerify({ jobId: '0x01', verifiers: 2 })).toBe(false)
    expect(supply.canVerify({ jobId: '0x01', verifiers: 2 })).toBe(false)
    expect(waiting).toEqual([['0x01', 0]])
    await registerNodes(chain.clients.slice(1, 4), parseEther('0.1'))
    // no refresh loop runs here: a count too small for a job is read again once it is a second old
    await waitFor(() => supply.canVerify({ jobId: '0x01', verifiers: 2 }), { what: 'the job verifiable on a fresh count', timeoutMs: 10_000 })
    expect(supply.canVerify({ jobId: '0x02', verifiers: 3 })).toBe(false)
    expect(waiting).toEqual([['0x01', 0], ['0x02', 3]])
    // the read that found more nodes said so (the peer wakes its processor on it), a read finding as many does not
    expect(grown).toEqual([3])
    expect(await supply.refresh()).toBe(3)
    expect(grown).toEqual([3])
  })

  it('a peer alone on the registry leaves a funded job with 3 verifiers alone, says why, and takes it once nodes join', async () => {
    chain = await startChain({ accounts: 5 })
    peer = await createPeer({
      listen: ['/ip4/127.0.0.1/tcp/0'],
      gpuModel: 'cpu',
      vramGb: 1,
      chain: { rpcUrl: chain.anvil.rpcUrl, privateKey: chain.anvil.accounts[1].privateKey, deployment: chain.deployment, stake: parseEther('0.1') }
    })
    const owned: string[] = []
    peer.processor?.addEventListener('ownership', (evt) => { owned.push(evt.detail.jobId) })
    // funded and open on chain, with the announced spec, its code on the peer itself: only the count holds it back
    const code = await peer.store.addRaw(new TextEncoder().encode('code of the job'))
    const job = await fundJob(chain.clients[0], { verifiers: 3, codeUri: `ipfs://${code}` })
    await peer.processor?.announceJob(job.spec, job.jobId, job.specCid)
    const told = await waitFor(() => peer?.events.recent().find(e => e.kind === 'job:waiting'), { what: 'the job:waiting event', timeoutMs: 10_000 })
    expect(told.jobId).toBe(job.jobId)
    expect(told.text).toMatch(/is left alone until more nodes join: its 3 verifiers are drawn among the active nodes besides its submitter, 4 are needed, 1 is active$/)
    expect(owned).toEqual([])
    expect(peer.status().work.currentJob).toBeUndefined()
    // three more nodes: four active, the job can be verified and the peer takes it
    await registerNodes(chain.clients.slice(2, 5), parseEther('0.1'))
    await waitFor(() => owned.includes(job.jobId), { what: 'the peer owning the job\'s MacroJob once 4 nodes are active', timeoutMs: 20_000 })
  })
})
