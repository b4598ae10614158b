import { generateKeyPair } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { finalMap } from '../../src/jobs/index.js'
import { resultTree } from '../../src/protocol/index.js'
import { MANIFEST_VERSION } from '../../src/settlement/constants.js'
import { loadManifest } from '../../src/settlement/lookup.js'
import { encodeManifest, resultLeaves } from '../../src/settlement/manifest.js'
import type { Manifest, ManifestEntry } from '../../src/settlement/index.js'

const JOB = '0x' + '11'.repeat(32)
const hash = (b: number): string => '0x' + b.toString(16).padStart(2, '0').repeat(32)
const wallet = (b: number): string => '0x' + b.toString(16).padStart(2, '0').repeat(20)

function entry (index: number, payee: string): ManifestEntry {
  return { microId: hash(index + 1), macroIndex: 0, index, start: index, end: index + 1, outputHash: hash(0xa0 + index), outputCid: `cid${index}`, size: 32, signer: 'p1', payee }
}

/** A manifest whose leaves give its root. */
function manifest (payee: string): Manifest {
  const microJobs = [0, 1, 2, 3].map(i => entry(i, payee))
  return { version: MANIFEST_VERSION, jobId: JOB, resultRoot: resultTree(resultLeaves({ microJobs })).root, microJobs }
}

describe('loadManifest (settlement/lookup.ts)', () => {
  it('skips a final record whose manifest names the on-chain root over other leaves: the real manifest is found', async () => {
    const real = manifest(wallet(1))
    // a hostile peer's manifest: the real root, every leaf paying itself
    const forged: Manifest = { ...real, microJobs: real.microJobs.map(e => ({ ...e, payee: wallet(9) })) }
    const content = new Map([['forged', encodeManifest(forged)], ['real', encodeManifest(real)]])
    const doc = new Y.Doc()
    const record = (manifestCid: string): Uint8Array => new TextEncoder().encode(JSON.stringify({ manifestCid, resultRoot: real.resultRoot, submitter: wallet(1), txHash: hash(5), blockNumber: 7 }))
    // the hostile record is written first: it comes first in the map
    const mallory = await generateKeyPair('Ed25519')
    const finalizer = await generateKeyPair('Ed25519')
    await finalMap(doc, JOB).set(peerIdFromPrivateKey(mallory).toString(), record('forged'), mallory)
    await finalMap(doc, JOB).set(peerIdFromPrivateKey(finalizer).toString(), record('real'), finalizer)
    const components = {
      docs: { open: async () => doc },
      chain: { submittedManifests: async () => [] },
      store: {
        fetch: async (uri: string) => {
          const bytes = content.get(uri.slice('ipfs://'.length))
          if (bytes === undefined) throw new Error(`no ${uri}`)
          return bytes
        }
      }
    }
    const found = await loadManifest(components as never, JOB, real.resultRoot)
    expect(found.manifestCid).toBe('real')
    expect(found.manifest.microJobs.every(e => e.payee === wallet(1))).toBe(true)

    // with only the forged one, there is no manifest: a typed error, not leaves that cannot be proven
    content.delete('real')
    await expect(loadManifest(components as never, JOB, real.resultRoot)).rejects.toMatchObject({ name: 'InvalidManifestError' })
  })
})
