import { createPrivateKey, createPublicKey, sign as signEd25519, verify as verifyEd25519 } from 'node:crypto'
import { peerIdFromString } from '@libp2p/peer-id'
import {
  decodeSignedRecord, encodeSignedRecord, recordSigningMessage
} from '../protocol/index.js'
import type { TrafficCounters } from '../protocol/index.js'
import type { PrivateKey } from '@libp2p/interface'
import type { KeyObject } from 'node:crypto'

/** DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410); the 32 raw key bytes follow. */
const ED25519_SPKI_PREFIX = Uint8Array.from([0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00])
/** DER prefix of an Ed25519 PKCS#8 private key (RFC 8410); the 32-byte seed follows. */
const ED25519_PKCS8_PREFIX = Uint8Array.from([0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20])
/** Signers whose imported public key is kept (a job's peers; the table is cleared when it grows past this). */
const MAX_CACHED_KEYS = 4_096

/** Imported public keys, shared by every verifier of the process (a job's verifiers and each round's see the same signers). */
const keys = new Map<string, KeyObject | null>()

/**
 * The signer's Ed25519 public key as a node KeyObject, imported once per signer: `verifySignedRecord` (libp2p's
 * `publicKey.verify`) parses the PeerId string and imports the key from JWK on every call, a quarter of the cost
 * of a record check (docs/coordination.md, Where the time and CPU go). `null`: not an Ed25519 PeerId.
 */
function signerKey (signer: string): KeyObject | null {
  let key = keys.get(signer)
  if (key !== undefined) return key
  key = null
  try {
    const peerId = peerIdFromString(signer)
    if (peerId.type === 'Ed25519') {
      key = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, peerId.publicKey.raw]), format: 'der', type: 'spki' })
    }
  } catch {
    key = null
  }
  if (keys.size >= MAX_CACHED_KEYS) keys.clear()
  keys.set(signer, key)
  return key
}

/**
 * Signs with the peer's key imported once: libp2p's `privateKey.sign` imports the key from JWK on every call, as much
 * again as the signature itself (docs/coordination.md, Eleventh round). Ed25519 signatures are deterministic, so the
 * bytes are the ones `privateKey.sign` makes. Other key types sign through libp2p and must do so synchronously.
 */
function signingFunction (privateKey: PrivateKey): (message: Uint8Array) => Uint8Array {
  if (privateKey.type === 'Ed25519') {
    const key = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, privateKey.raw.subarray(0, 32)]), format: 'der', type: 'pkcs8' })
    return (message) => signEd25519(null, message, key)
  }
  return (message) => {
    const signature = privateKey.sign(message)
    if (!(signature instanceof Uint8Array)) {
      throw new TypeError('record keys must sign synchronously (Ed25519)')
    }
    return signature
  }
}

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
  /**
   * Records that `envelope` is `record` under `domain` without checking it: for a record this peer has just signed
   * ({@link signTrusted}), so reading back its own leases and results costs no signature check.
   */
  trust(envelope: Uint8Array, domain: string, record: VerifiedRecord): void
}

/** Signs a record this peer writes and lets `verifier` know it is valid (see {@link RecordVerifier.trust}). */
export function signTrusted (components: { signer: RecordSigner, verifier: RecordVerifier }, domain: string, payload: Uint8Array): Uint8Array {
  const envelope = components.signer.sign(domain, payload)
  components.verifier.trust(envelope, domain, { signer: components.signer.peerId, payload })
  return envelope
}

/**
 * A signer for the protocol's record envelope (`encodeSignedRecord`). Ed25519 libp2p keys sign synchronously on
 * Node, which lets a queue owner write a batch of leases in one Yjs transaction.
 */
export function recordSigner (privateKey: PrivateKey, peerId: string, counters?: TrafficCounters): RecordSigner {
  const signMessage = signingFunction(privateKey)
  return {
    peerId,
    sign (domain, payload) {
      if (counters != null) counters.recordSignatures++
      const signature = signMessage(recordSigningMessage(domain, payload))
      return encodeSignedRecord({ payload, signer: peerId, signature })
    }
  }
}

/**
 * A verifier with a cache keyed by the bytes object (Yjs hands back the same Uint8Array for an unchanged value,
 * so re-reading a map costs no signature checks) and the signers' public keys imported once. It accepts exactly
 * what `verifySignedRecord` accepts (Ed25519 signers only).
 */
export function recordVerifier (counters?: TrafficCounters): RecordVerifier {
  const cache = new WeakMap<Uint8Array, Map<string, VerifiedRecord | null>>()
  const remember = (envelope: Uint8Array, domain: string, result: VerifiedRecord | null): void => {
    let byDomain = cache.get(envelope)
    if (byDomain == null) {
      byDomain = new Map()
      cache.set(envelope, byDomain)
    }
    byDomain.set(domain, result)
  }
  return {
    trust (envelope, domain, record) {
      remember(envelope, domain, record)
    },
    verify (envelope, domain) {
      const hit = cache.get(envelope)?.get(domain)
      if (hit !== undefined) {
        return hit ?? undefined
      }
      let result: VerifiedRecord | null = null
      try {
        const record = decodeSignedRecord(envelope)
        if (counters != null) counters.recordVerifications++
        const key = signerKey(record.signer)
        if (key != null && verifyEd25519(null, recordSigningMessage(domain, record.payload), key, record.signature)) {
          result = { signer: record.signer, payload: record.payload }
        }
      } catch {
        result = null
      }
      remember(envelope, domain, result)
      return result ?? undefined
    }
  }
}
