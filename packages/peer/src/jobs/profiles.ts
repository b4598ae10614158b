import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { getAddress } from 'ethers'
import { INDEX_DOC, ownerIsKey, signedMap } from '../crdt/index.js'
import { PEERS_MAP, PROFILE_DOMAIN } from './constants.js'
import { InvalidProfileError } from './errors.js'
import type { JobsDocs } from './types.js'
import type { SignedMap } from '../crdt/index.js'
import type { PrivateKey } from '@libp2p/interface'

/** A peer's signed profile in `jobmesh/index` map `peers`, key = its PeerId, signed by that peer. */
export interface PeerProfile {
  /** The wallet address that receives the peer's payouts (EIP-55). */
  address: string
  gpuModel: string
  vramGb: number
}

function peersMap (doc: { getMap: (name: string) => unknown }): SignedMap {
  return signedMap(doc.getMap(PEERS_MAP) as never, { domain: PROFILE_DOMAIN, owner: ownerIsKey })
}

/** Canonical payload bytes of a profile (JSON, fixed key order). */
export function encodeProfile (profile: PeerProfile): Uint8Array {
  return new TextEncoder().encode(JSON.stringify({ address: getAddress(profile.address), gpuModel: profile.gpuModel, vramGb: profile.vramGb }))
}

/** @throws InvalidProfileError */
export function decodeProfile (bytes: Uint8Array): PeerProfile {
  try {
    const p = JSON.parse(new TextDecoder().decode(bytes)) as Partial<PeerProfile>
    if (typeof p.address !== 'string' || typeof p.gpuModel !== 'string' || typeof p.vramGb !== 'number') throw new Error('missing fields')
    return { address: getAddress(p.address), gpuModel: p.gpuModel, vramGb: p.vramGb }
  } catch (err) {
    throw new InvalidProfileError(`malformed peer profile: ${(err as Error).message}`, { cause: err })
  }
}

/** Writes (or replaces) this peer's signed profile in `jobmesh/index`. */
export async function publishProfile (components: { docs: JobsDocs, privateKey: PrivateKey }, profile: PeerProfile,
  options: { signal?: AbortSignal } = {}): Promise<void> {
  const doc = await components.docs.open(INDEX_DOC, options)
  const peerId = peerIdFromPrivateKey(components.privateKey).toString()
  await peersMap(doc).set(peerId, encodeProfile(profile), components.privateKey)
}

/** Every verified profile in `jobmesh/index` (PeerId -> profile); malformed ones are left out. */
export async function readProfiles (components: { docs: JobsDocs }, options: { signal?: AbortSignal } = {}): Promise<Map<string, PeerProfile>> {
  const doc = await components.docs.open(INDEX_DOC, options)
  const out = new Map<string, PeerProfile>()
  for (const [peerId, entry] of peersMap(doc).entries()) {
    try {
      out.set(peerId, decodeProfile(entry.payload))
    } catch {
      // malformed: absent
    }
  }
  return out
}
