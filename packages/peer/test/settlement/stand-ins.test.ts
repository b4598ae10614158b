import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { standIns } from '../../src/settlement/own-results.js'
import { workTag } from '../../src/protocol/index.js'
import type { Result } from '../../src/coord/index.js'
import type { ManifestEntry } from '../../src/settlement/index.js'
import type { RoundRecords } from '../../src/settlement/sample.js'

const hash = (b: number): string => '0x' + b.toString(16).padStart(2, '0').repeat(32)
const bytes = (b: number): Uint8Array => new Uint8Array(32).fill(b)
const wallet = (b: number): string => '0x' + b.toString(16).padStart(2, '0').repeat(20)

/** Payees from the registry only (no profiles): PeerId `p<n>` pays `wallet(n)`. */
const components = {
  docs: { open: async () => new Y.Doc() },
  chain: { peerAddress: async (peerId: string) => wallet(Number(peerId.slice(1))) }
}

/** A replaced entry as ensureOutputs returns it: the finalizer `p9`'s re-run, output 0xaa.. */
const replaced = (index: number): ManifestEntry => ({
  microId: `m${index}`, macroIndex: 0, index, start: index, end: index + 1, outputHash: hash(0xaa), outputCid: 'cid', size: 32,
  signer: 'p9', payee: wallet(9)
})

function records (results: Map<number, Result[]>): RoundRecords {
  return { of: async (d) => ({ all: results.get(d.index) ?? [], counting: undefined }), writeOwn: async () => {} }
}

/** The execution digest of every re-run here, and the finalizer's re-run digests by MicroJob key. */
const DIGEST = hash(0xcc)
const digests = new Map([['0.0', DIGEST], ['0.1', DIGEST], ['0.2', DIGEST]])
const tagged = (signer: string, term: number, output: number, digest = DIGEST): Result =>
  ({ signer, term, outputHash: bytes(output), size: 32, workTag: workTag(digest, signer) })

describe('stand-ins for withheld wrong outputs (settlement/own-results.ts)', () => {
  it('pays another peer\'s correct result made under a lease with its own work tag; else the finalizer, which must sign its own', async () => {
    const results = new Map<number, Result[]>([
      // the faker's wrong result (the one that counted) and an honest duplicate with the right output
      [0, [tagged('p1', 3, 0xbb), tagged('p2', 2, 0xaa)]],
      // only the faker's wrong result, and a right one without a lease (term 0, as a stand-in signs): not preferred
      [1, [tagged('p1', 3, 0xbb), tagged('p4', 0, 0xaa)]],
      // a right one under a lease whose work tag is not from a run (a copy of the output hash): not preferred
      [2, [tagged('p1', 3, 0xbb), tagged('p5', 2, 0xaa, hash(0xdd))]]
    ])
    const { entries, own } = await standIns(components, records(results), [replaced(0), replaced(1), replaced(2)], digests)
    expect(entries).toEqual([{ ...replaced(0), signer: 'p2', payee: wallet(2) }, replaced(1), replaced(2)])
    expect(own).toEqual([{ ...replaced(1), workTag: workTag(DIGEST, 'p9') }, { ...replaced(2), workTag: workTag(DIGEST, 'p9') }])
  })
})
