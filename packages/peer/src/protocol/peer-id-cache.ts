import { peerIdFromMultihash, peerIdFromString } from '@libp2p/peer-id'
import * as Digest from 'multiformats/hashes/digest'

/** Conversions remembered per direction; a table is cleared when it grows past this (a network's active signers). */
const MAX_REMEMBERED = 4_096

const names = new Map<string, string>()
const multihashes = new Map<string, Uint8Array>()

function remember<V> (table: Map<string, V>, key: string, value: V): V {
  if (table.size >= MAX_REMEMBERED) table.clear()
  table.set(key, value)
  return value
}

/**
 * The PeerId string of PeerId multihash bytes, checked as libp2p checks them. Every record names its signer this
 * way, and every peer decodes each lease and result record at least once: the base58 encoding and the PeerId
 * object cost more than the rest of the decoding (docs/coordination.md, Eleventh round). Room snapshots name their
 * owners and lock holders this way too (a PeerId that is not one makes the snapshot malformed).
 *
 * @throws Error when the bytes are not a PeerId multihash
 */
export function peerIdOfMultihash (bytes: Uint8Array): string {
  const key = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1')
  return names.get(key) ?? remember(names, key, peerIdFromMultihash(Digest.decode(bytes)).toString())
}

/**
 * The multihash bytes of a PeerId string (shared: copy before changing them).
 *
 * @throws Error when the string is not a PeerId
 */
export function multihashOfPeerId (peerId: string): Uint8Array {
  return multihashes.get(peerId) ?? remember(multihashes, peerId, peerIdFromString(peerId).toMultihash().bytes)
}
