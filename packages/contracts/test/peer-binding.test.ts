import { generateKeyPairSync, sign, verify, createPublicKey } from 'node:crypto'
import { getBytes, hexlify, toUtf8Bytes } from 'ethers'
import { describe, expect, it } from 'vitest'
import { PEER_BINDING_DOMAIN, ed25519PeerId, peerBindingMessage, signPeerBinding } from '../src/index.js'
import type { PeerBindingKey } from '../src/index.js'

const deployment = { chainId: 31337, nodeRegistry: '0x5615dEB798BB3E4dFa0139dFa1b3D433Cc23b72f' }
const owner = '0x0000000000000000000000000000000000001000'

function nodeKey (): { key: PeerBindingKey, spki: ReturnType<typeof createPublicKey> } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519')
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x ?? '', 'base64url')
  return { key: { type: 'Ed25519', publicKey: { raw }, sign: (data) => sign(null, data, privateKey) }, spki: publicKey }
}

describe('the PeerId binding', () => {
  it('lays the message out as NodeRegistry.peerBindingMessage: domain, chain id, registry, owner', () => {
    const m = peerBindingMessage(deployment, owner)
    expect(m.length).toBe(23 + 32 + 20 + 20)
    expect(hexlify(m.subarray(0, 23))).toBe(hexlify(toUtf8Bytes(PEER_BINDING_DOMAIN)))
    expect(BigInt(hexlify(m.subarray(23, 55)))).toBe(31337n)
    expect(hexlify(m.subarray(55, 75))).toBe(deployment.nodeRegistry.toLowerCase())
    expect(hexlify(m.subarray(75))).toBe(owner)
  })

  it('gives the libp2p PeerId of a key (a pair made by @libp2p/crypto in test/vectors)', () => {
    const raw = getBytes('0xb363878c5c3c9d34eeff7f5e5bd1653c2c0c98c4e6af065b33477bc62ffe7191')
    expect(ed25519PeerId(raw)).toBe('12D3KooWMtdAsob553bGQZet7vEN6E3WDWsfwyci6DnW1X8gW4wJ')
    expect(() => ed25519PeerId(raw.subarray(1))).toThrow(expect.objectContaining({ name: 'PeerKeyTypeError' }))
  })

  it('signs the binding with the key (an RFC 8032 signature of the message)', async () => {
    const { key, spki } = nodeKey()
    const proof = await signPeerBinding(key, deployment, owner)
    expect(proof.publicKey).toBe(hexlify(key.publicKey.raw))
    expect(proof.peerId).toBe(ed25519PeerId(key.publicKey.raw))
    expect(verify(null, peerBindingMessage(deployment, owner), spki, getBytes(proof.signature))).toBe(true)
    expect(verify(null, peerBindingMessage(deployment, '0x0000000000000000000000000000000000001001'), spki, getBytes(proof.signature))).toBe(false)
  })

  it('refuses a key that is not Ed25519 with a typed error', async () => {
    const key: PeerBindingKey = { type: 'secp256k1', publicKey: { raw: new Uint8Array(33) }, sign: () => new Uint8Array(64) }
    await expect(signPeerBinding(key, deployment, owner)).rejects.toMatchObject({ name: 'PeerKeyTypeError' })
  })
})
