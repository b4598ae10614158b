import { concat, encodeBase58, getAddress, getBytes, hexlify, toBeHex, toUtf8Bytes, zeroPadValue } from 'ethers'
import { PeerKeyTypeError } from './errors.js'
import type { Deployment } from './deploy.js'

/** Domain of the message a node signs with its PeerId's key to register (`NodeRegistry.PEER_BINDING_DOMAIN`). */
export const PEER_BINDING_DOMAIN = 'jobmesh/peer-binding/v1'

/** The libp2p Ed25519 private key of a PeerId (`@libp2p/interface`'s `Ed25519PrivateKey` fits). */
export interface PeerBindingKey {
  readonly type: string
  readonly publicKey: { readonly raw: Uint8Array }
  sign(data: Uint8Array): Uint8Array | Promise<Uint8Array>
}

/** The identity multihash prefix of a libp2p Ed25519 public key: identity, 36 bytes, protobuf KeyType Ed25519, 32 bytes. */
const ED25519_PEER_ID_PREFIX = '0x002408011220'

/** What `NodeRegistry.register` takes: the PeerId string, the raw public key and its signature of the binding. */
export interface PeerIdProof {
  /** The key's PeerId (`12D3KooW...`), the one string the registry accepts with this key. */
  peerId: string
  /** The raw 32-byte Ed25519 public key, 0x-hex. */
  publicKey: string
  /** The 64-byte RFC 8032 signature of {@link peerBindingMessage}, 0x-hex. */
  signature: string
}

/** The PeerId of a raw 32-byte Ed25519 public key (base58btc of its identity multihash), as `PeerId.sol` checks it. */
export function ed25519PeerId (publicKey: Uint8Array): string {
  if (publicKey.length !== 32) throw new PeerKeyTypeError(`an Ed25519 public key has 32 bytes, not ${publicKey.length}`)
  return encodeBase58(concat([ED25519_PEER_ID_PREFIX, publicKey]))
}

/**
 * The message `owner` must have signed with its PeerId's key to register on `deployment`'s NodeRegistry: the domain,
 * the chain id (32 bytes), the registry and the owner (20 bytes each), as `NodeRegistry.peerBindingMessage(owner)`
 * builds it. Bound to one address, registry and chain, so a proof cannot be replayed elsewhere.
 */
export function peerBindingMessage (deployment: Pick<Deployment, 'chainId' | 'nodeRegistry'>, owner: string): Uint8Array {
  return getBytes(concat([
    toUtf8Bytes(PEER_BINDING_DOMAIN),
    zeroPadValue(toBeHex(deployment.chainId), 32),
    getAddress(deployment.nodeRegistry),
    getAddress(owner)
  ]))
}

/**
 * Signs the PeerId binding of `owner` with the PeerId's Ed25519 key.
 *
 * @example
 * ```ts
 * const proof = await signPeerBinding(libp2p.privateKey, deployment, await signer.getAddress())
 * await nodeRegistry.register(proof.peerId, proof.publicKey, proof.signature, gpuModelId, 24, { value })
 * ```
 * @throws PeerKeyTypeError when the key is not an Ed25519 key (only those are accepted on chain)
 */
export async function signPeerBinding (key: PeerBindingKey, deployment: Pick<Deployment, 'chainId' | 'nodeRegistry'>, owner: string): Promise<PeerIdProof> {
  if (key.type !== 'Ed25519' || key.publicKey.raw.length !== 32) {
    throw new PeerKeyTypeError(`the registry accepts Ed25519 PeerIds only, not a ${key.type} key`)
  }
  const signature = await key.sign(peerBindingMessage(deployment, owner))
  return { peerId: ed25519PeerId(key.publicKey.raw), publicKey: hexlify(key.publicKey.raw), signature: hexlify(signature) }
}
