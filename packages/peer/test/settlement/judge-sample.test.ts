import * as Y from 'yjs'
import { describe, expect, it } from 'vitest'
import { ZeroAddress, getAddress } from 'ethers'
import { evidenceComplete, judgeSample } from '../../src/settlement/sample.js'
import { resultLeafHash, workTag } from '../../src/protocol/index.js'
import type { RoundRecords } from '../../src/settlement/sample.js'
import type { Result } from '../../src/coord/results.js'
import type { SampleLeaf } from '@jobmesh/contracts'
import type { MicroJobDescriptor } from '../../src/protocol/index.js'

// Pure judgement logic: the round's records are given directly; payees come from the registry's peerIdOwner (no
// profiles in an empty index doc).
const HONEST = getAddress('0x' + '11'.repeat(20))
const FAKER = getAddress('0x' + '22'.repeat(20))
const OWNERS: Record<string, string> = { 'peer-honest': HONEST, 'peer-faker': FAKER }
const RIGHT = '0x' + 'aa'.repeat(32)
const WRONG = '0x' + 'bb'.repeat(32)
/** The execution digest of the MicroJob's run (the verifier's re-run yields the same). */
const DIGEST = '0x' + 'cc'.repeat(32)

const index = new Y.Doc()
const components = {
  docs: { open: async () => index },
  chain: { peerAddress: async (peerId: string) => OWNERS[peerId] }
} as unknown as Parameters<typeof judgeSample>[0]

const descriptor = { microId: '0x' + '01'.repeat(32), macroIndex: 0, index: 1, start: 0, end: 1 } as unknown as MicroJobDescriptor

/** A signed result; `ran` false: its work tag is not its own run's (a copy of another peer's output). */
function result (signer: string, hash: string, { term = 1, ran = true }: { term?: number, ran?: boolean } = {}): Result {
  return { signer, term, outputHash: Buffer.from(hash.slice(2), 'hex'), size: 1, workTag: workTag(ran ? DIGEST : '0x' + 'dd'.repeat(32), signer) }
}

/** The round's records; the counting one is the highest term, as the fencing rule picks once the leases are gone. */
function records (all: Result[]): RoundRecords {
  return { of: async () => ({ all, counting: [...all].sort((a, b) => b.term - a.term)[0] }), writeOwn: async () => {} }
}

function leaf (outputHash: string, payee: string): SampleLeaf {
  return { microId: descriptor.microId, macroIndex: 0, index: 1, outputHash, payee }
}

describe('judging a sampled leaf', () => {
  it('a right leaf whose payee signed it matches; its evidence is complete', async () => {
    const recs = records([result('peer-honest', RIGHT)])
    const sample = [{ descriptor, outputHash: RIGHT, digest: DIGEST, proven: leaf(RIGHT, HONEST) }]
    expect(await evidenceComplete(components, recs, sample)).toBe(true)
    const j = await judgeSample(components, recs, sample)
    expect(j.firstBad).toBe(-1)
    expect(j.expected[0]).toBe(resultLeafHash(leaf(RIGHT, HONEST)))
  })

  it('a right leaf whose signed result has not arrived yet: the evidence is incomplete (judging now would reject it)', async () => {
    const sample = [{ descriptor, outputHash: RIGHT, digest: DIGEST, proven: leaf(RIGHT, HONEST) }]
    expect(await evidenceComplete(components, records([]), sample)).toBe(false)
    const early = await judgeSample(components, records([]), sample)
    expect(early.firstBad).toBe(0)
    expect(early.processorBlame).toBe(false)
  })

  it('a wrong output its payee signed: bad, the processor blamed, once the signed result is here', async () => {
    const sample = [{ descriptor, outputHash: RIGHT, digest: DIGEST, proven: leaf(WRONG, FAKER) }]
    expect(await evidenceComplete(components, records([]), sample)).toBe(false)
    const recs = records([result('peer-faker', WRONG)])
    expect(await evidenceComplete(components, recs, sample)).toBe(true)
    const j = await judgeSample(components, recs, sample)
    expect(j.firstBad).toBe(0)
    expect(j.processorBlame).toBe(true)
  })

  it('a right output paid to a wallet that signed nothing: bad, the submitter blamed; never complete', async () => {
    const recs = records([result('peer-honest', RIGHT)])
    const sample = [{ descriptor, outputHash: RIGHT, digest: DIGEST, proven: leaf(RIGHT, FAKER) }]
    expect(await evidenceComplete(components, recs, sample)).toBe(false)
    const j = await judgeSample(components, recs, sample)
    expect(j.firstBad).toBe(0)
    expect(j.processorBlame).toBe(false)
    expect(j.expected[0]).toBe(resultLeafHash(leaf(RIGHT, HONEST)))
  })

  it('without a proof, any signed result completes the evidence; none expects the zero payee', async () => {
    const sample = [{ descriptor, outputHash: RIGHT, digest: DIGEST, proven: undefined }]
    expect(await evidenceComplete(components, records([]), sample)).toBe(false)
    expect(await evidenceComplete(components, records([result('peer-honest', RIGHT)]), sample)).toBe(true)
    const j = await judgeSample(components, records([]), sample)
    expect(j.expected[0]).toBe(resultLeafHash(leaf(RIGHT, ZeroAddress)))
  })

  it('a copy of the honest output under a higher term, without a work tag of its own run: paying the copier is bad, the copier blamed', async () => {
    // the copier's record counts by the fencing rule (highest term) but proves no run
    const recs = records([result('peer-honest', RIGHT), result('peer-faker', RIGHT, { term: 0xffffffff, ran: false })])
    const stolen = [{ descriptor, outputHash: RIGHT, digest: DIGEST, proven: leaf(RIGHT, FAKER) }]
    expect(await evidenceComplete(components, recs, stolen)).toBe(true)
    const j = await judgeSample(components, recs, stolen)
    expect(j.firstBad).toBe(0)
    expect(j.processorBlame).toBe(true)
    expect(j.expected[0]).toBe(resultLeafHash(leaf(RIGHT, HONEST)))
    // the honest processor's leaf is the right one
    const paid = await judgeSample(components, recs, [{ ...stolen[0], proven: leaf(RIGHT, HONEST) }])
    expect(paid.firstBad).toBe(-1)
  })

  it('a result without any work tag proves no run either', async () => {
    const untagged = { ...result('peer-faker', RIGHT), workTag: undefined }
    const j = await judgeSample(components, records([untagged]), [{ descriptor, outputHash: RIGHT, digest: DIGEST, proven: leaf(RIGHT, FAKER) }])
    expect(j.firstBad).toBe(0)
    expect(j.processorBlame).toBe(true)
    expect(j.expected[0]).toBe(resultLeafHash(leaf(RIGHT, ZeroAddress)))
  })

  it('two peers that both ran it (rival queues, a stand-in): either one may be paid', async () => {
    const recs = records([result('peer-honest', RIGHT), result('peer-faker', RIGHT, { term: 2 })])
    for (const payee of [HONEST, FAKER]) {
      const j = await judgeSample(components, recs, [{ descriptor, outputHash: RIGHT, digest: DIGEST, proven: leaf(RIGHT, payee) }])
      expect(j.firstBad).toBe(-1)
    }
  })
})
