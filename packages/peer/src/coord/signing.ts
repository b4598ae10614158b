import {
  decodeSignedRecord, encodeSignedRecord, recordSigningMessage, verifySignedRecord
} from '../protocol/index.js'
import type { TrafficCounters } from '../protocol/index.js'
import type { PrivateKey } from '@libp2p/interface'

/** A verified record: who signed it and what. */
export interface VerifiedRecord {
  signer: string
  payload: Uint8Array
}

/** Signs record payloads for a domain with the peer's libp2p key, producing protocol signed-record bytes. */
export interface RecordSigner {
  /** PeerId string of the signer. */
  readonly peerId: string
  sign(domain: string, payload: Uint8Array): Uint8Array
}

/** Verifies signed-record bytes; `undefined` = invalid (treat as absent). */
export interface RecordVerifier {
  verify(envelope: Uint8Array, domain: string): VerifiedRecord | undefined
}

/**
 * A signer for the protocol's record envelope (`encodeSignedRecord`). Ed25519 libp2p keys sign synchronously on
 * Node, which lets a queue owner write a batch of leases in one Yjs transaction.
 */
export function recordSigner (privateKey: PrivateKey, peerId: string, counters?: TrafficCounters): RecordSigner {
  return {
    peerId,
    sign (domain, payload) {
      if (counters != null) counters.recordSignatures++
      const signature = privateKey.sign(recordSigningMessage(domain, payload))
      if (!(signature instanceof Uint8Array)) {
        throw new TypeError('record keys must sign synchronously (Ed25519)')
      }
      return encodeSignedRecord({ payload, signer: peerId, signature })
    }
  }
}

/**
 * A verifier with a cache keyed by the bytes object (Yjs hands back the same Uint8Array for an unchanged value,
 * so re-reading a map costs no signature checks).
 */
export function recordVerifier (counters?: TrafficCounters): RecordVerifier {
  const cache = new WeakMap<Uint8Array, Map<string, VerifiedRecord | null>>()
  return {
    verify (envelope, domain) {
      let byDomain = cache.get(envelope)
      const hit = byDomain?.get(domain)
      if (hit !== undefined) {
        return hit ?? undefined
      }
      let result: VerifiedRecord | null = null
      try {
        const record = decodeSignedRecord(envelope)
        if (counters != null) counters.recordVerifications++
        if (verifySignedRecord(record, domain)) {
          result = { signer: record.signer, payload: record.payload }
        }
      } catch {
        result = null
      }
      if (byDomain == null) {
        byDomain = new Map()
        cache.set(envelope, byDomain)
      }
      byDomain.set(domain, result)
      return result ?? undefined
    }
  }
}
