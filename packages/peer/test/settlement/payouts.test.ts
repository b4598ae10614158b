import { generateKeyPair } from '@libp2p/crypto/keys'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { payoutTree, resultTree } from '../../src/protocol/index.js'
import {
  computePayouts, decodeManifest, encodeManifest, manifestTrees, payoutLeaves, publishProfile, readProfile, resultLeaves
} from '../../src/settlement/index.js'
import type { Manifest, SettlementDocs } from '../../src/settlement/index.js'

const A = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const B = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'

describe('payouts, manifest and peer profiles', () => {
  it('splits the pool by blocks, merges wallets, gives the remainder to the largest payee', () => {
    const leaves = computePayouts([{ payee: B, blocks: 1 }, { payee: A, blocks: 1 }, { payee: A.toLowerCase(), blocks: 1 }, { payee: B, blocks: 0 }], 100n)
    expect(leaves).toEqual([{ payee: B, amount: 33n }, { payee: A, amount: 67n }].sort((x, y) => x.payee.toLowerCase() < y.payee.toLowerCase() ? -1 : 1))
    expect(computePayouts([], 100n)).toEqual([])
  })

  it('round-trips a manifest and checks its roots', () => {
    const manifest: Manifest = {
      version: 1, jobId: '0x' + '01'.repeat(32), resultRoot: '', payoutRoot: '',
      microJobs: [{ microId: '0x' + '02'.repeat(32), macroIndex: 0, index: 0, start: 0, end: 1, outputHash: '0x' + '03'.repeat(32), outputCid: 'x', size: 1, signer: 'p' }],
      payouts: [{ payee: A, amount: '10', blocks: 1 }]
    }
    expect(() => manifestTrees(manifest)).toThrow(expect.objectContaining({ name: 'InvalidManifestError' }))
    manifest.resultRoot = resultTree(resultLeaves(manifest)).root
    manifest.payoutRoot = payoutTree(payoutLeaves(manifest)).root
    expect(manifestTrees(manifest).payouts.length).toBe(1)
    expect(decodeManifest(encodeManifest(manifest))).toEqual(manifest)
    expect(() => decodeManifest(new TextEncoder().encode('{"version":2}'))).toThrow(expect.objectContaining({ name: 'InvalidManifestError' }))
  })

  it('publishes a signed profile that only its owner can write', async () => {
    const doc = new Y.Doc()
    const docs: SettlementDocs = { open: async () => doc }
    const key = await generateKeyPair('Ed25519')
    await publishProfile({ docs, privateKey: key }, { address: A.toLowerCase(), gpuModel: 'cpu', vramGb: 4 })
    const { peerIdFromPrivateKey } = await import('@libp2p/peer-id')
    const me = peerIdFromPrivateKey(key).toString()
    expect(await readProfile({ docs }, me)).toEqual({ address: A, gpuModel: 'cpu', vramGb: 4 })
    // another peer's record copied under my key does not verify
    const other = await generateKeyPair('Ed25519')
    await publishProfile({ docs, privateKey: other }, { address: B, gpuModel: 'cpu', vramGb: 4 })
    const otherId = peerIdFromPrivateKey(other).toString()
    doc.getMap<Uint8Array>('peers').set(me, doc.getMap<Uint8Array>('peers').get(otherId) as Uint8Array)
    expect(await readProfile({ docs }, me)).toBeUndefined()
  })
})
