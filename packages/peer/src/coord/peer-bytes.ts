import { base58btc } from 'multiformats/bases/base58'

/** PeerId string (base58btc multihash) -> the multihash bytes carried in messages. */
export function peerToBytes (peer: string): Uint8Array {
  return base58btc.baseDecode(peer)
}

/** Multihash bytes -> PeerId string. Throws on invalid base58 input only; the caller compares with a known id. */
export function bytesToPeer (bytes: Uint8Array): string {
  return base58btc.baseEncode(bytes)
}
