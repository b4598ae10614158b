import { peerIdFromPrivateKey, peerIdFromString } from '@libp2p/peer-id'
import { RECORD_SIGNING_PREFIX } from './constants.js'
import { InvalidDomainError } from './errors.js'
import { lengthPrefixed } from './varint.js'
import type { PrivateKey } from '@libp2p/interface'

/** A payload signed by a peer: `signer` is the PeerId string, `signature` covers `recordSigningMessage`. */
export interface SignedRecord {
  payload: Uint8Array
  signer: string
  signature: Uint8Array
}

const MAX_DOMAIN_BYTES = 255
const encoder = new TextEncoder()
const PREFIX = encoder.encode(RECORD_SIGNING_PREFIX)

function domainBytes (domain: string): Uint8Array {
  const bytes = encoder.encode(domain)
  if (bytes.length === 0 || bytes.length > MAX_DOMAIN_BYTES) {
    throw new InvalidDomainError(`record domain must be 1..${MAX_DOMAIN_BYTES} UTF-8 bytes`)
  }
  return bytes
}

/**
 * The bytes a record signature covers: `varint(len(prefix)) prefix varint(len(domain)) domain varint(len(payload))
 * payload`, prefix = UTF-8 "jobmesh/record/1", domain = UTF-8 (e.g. "lease", "result"). A signature made for one
 * domain does not verify under another.
 */
export function recordSigningMessage (domain: string, payload: Uint8Array): Uint8Array {
  return lengthPrefixed([PREFIX, domainBytes(domain), payload])
}

/** Signs `payload` under `domain` with a libp2p private key (Ed25519 for records that `verifySignedRecord` accepts). */
export async function signRecord (privateKey: PrivateKey, domain: string, payload: Uint8Array): Promise<SignedRecord> {
  const signature = await privateKey.sign(recordSigningMessage(domain, payload))
  // a plain Uint8Array (Node returns a Buffer), so records compare and serialise alike everywhere
  return { payload, signer: peerIdFromPrivateKey(privateKey).toString(), signature: Uint8Array.from(signature) }
}

/**
 * Synchronously checks a record's signature under `domain`. Only Ed25519 signers (whose PeerId embeds the public
 * key) are accepted. Returns false, never throws, for anything invalid.
 */
export function verifySignedRecord (record: SignedRecord, domain: string): boolean {
  try {
    const peerId = peerIdFromString(record.signer)
    if (peerId.type !== 'Ed25519') return false
    const result = peerId.publicKey.verify(recordSigningMessage(domain, record.payload), record.signature)
    return result === true
  } catch {
    return false
  }
}
