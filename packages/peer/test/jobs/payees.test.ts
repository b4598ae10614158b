import { generateKeyPair } from '@libp2p/crypto/keys'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { resultTree } from '../../src/protocol/index.js'
import { decodeManifest, encodeManifest, manifestTree, resultLeaves } from '../../src/settlement/index.js'
import { payeeOf, publishProfile, readProfiles } from '../../src/jobs/index.js'
import type { Manifest, SettlementDocs } from '../../src/settlement/index.js'

const A = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const B = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'

describe('payees, manifest and peer profiles', () => {
  it('pays (and blames) the wallet that registered the signer\'s PeerId, whatever its profile names, else nobody', async () => {
    const doc = new Y.Doc()
    const docs: SettlementDocs = { open: async () => doc }
    const [withProfile, registered, unknown] = await Promise.all([generateKeyPair('Ed25519'), generateKeyPair('Ed25519'), generateKeyPair('Ed25519')])
    const { peerIdFromPrivateKey } = await import('@libp2p/peer-id')
    const id = (k: typeof withProfile): string => peerIdFromPrivateKey(k).toString()
    await publishProfile({ docs, privateKey: withProfile }, { address: A.toLowerCase(), gpuModel: 'cpu', vramGb: 4 })
    const chain = { peerAddress: async (peerId: string) => peerId === id(registered) || peerId === id(withProfile) ? B : undefined }
    // its profile names A (its own word): the registry binds it to B, so B is paid, and blamed for a fake
    expect(await payeeOf({ chain }, id(withProfile))).toBe(B)
    expect(await payeeOf({ chain }, id(registered))).toBe(B)
    expect(await payeeOf({ chain }, id(unknown))).toBe('0x0000000000000000000000000000000000000000')
  })

  it('round-trips a manifest and checks its root', () => {
    const manifest: Manifest = {
      version: 2,
      jobId: '0x' + '01'.repeat(32),
      resultRoot: '',
      microJobs: [{ microId: '0x' + '02'.repeat(32), macroIndex: 0, index: 0, start: 0, end: 1, outputHash: '0x' + '03'.repeat(32), outputCid: 'x', size: 1, signer: 'p', payee: A }]
    }
    expect(() => manifestTree(manifest)).toThrow(expect.objectContaining({ name: 'InvalidManifestError' }))
    manifest.resultRoot = resultTree(resultLeaves(manifest)).root
    expect(manifestTree(manifest).length).toBe(1)
    expect(decodeManifest(encodeManifest(manifest))).toEqual(manifest)
    // a manifest paying someone else does not give the root
    expect(() => manifestTree({ ...manifest, microJobs: [{ ...manifest.microJobs[0], payee: B }] })).toThrow(expect.objectContaining({ name: 'InvalidManifestError' }))
    expect(() => decodeManifest(new TextEncoder().encode('{"version":1}'))).toThrow(expect.objectContaining({ name: 'InvalidManifestError' }))
  })

  it('publishes a signed profile that only its owner can write', async () => {
    const doc = new Y.Doc()
    const docs: SettlementDocs = { open: async () => doc }
    const key = await generateKeyPair('Ed25519')
    await publishProfile({ docs, privateKey: key }, { address: A.toLowerCase(), gpuModel: 'cpu', vramGb: 4 })
    const { peerIdFromPrivateKey } = await import('@libp2p/peer-id')
    const me = peerIdFromPrivateKey(key).toString()
    expect((await readProfiles({ docs })).get(me)).toEqual({ address: A, gpuModel: 'cpu', vramGb: 4 })
    // another peer's record copied under my key does not verify
    const other = await generateKeyPair('Ed25519')
    await publishProfile({ docs, privateKey: other }, { address: B, gpuModel: 'cpu', vramGb: 4 })
    const otherId = peerIdFromPrivateKey(other).toString()
    doc.getMap<Uint8Array>('peers').set(me, doc.getMap<Uint8Array>('peers').get(otherId) as Uint8Array)
    expect((await readProfiles({ docs })).get(me)).toBeUndefined()
  })
})
