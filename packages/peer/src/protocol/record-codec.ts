import { MAX_RECORD_PAYLOAD_BYTES, SIGNED_RECORD_VERSION } from './constants.js'
import { MalformedRecordError } from './errors.js'
import { multihashOfPeerId, peerIdOfMultihash } from './peer-id-cache.js'
import { lengthPrefixed, readVarint } from './varint.js'
import type { SignedRecord } from './signed-record.js'

/**
 * Compact binary form of a SignedRecord: `0x01 varint(len(signer)) signer varint(len(signature)) signature
 * varint(len(payload)) payload`, where `signer` is the PeerId's multihash bytes (38 bytes for Ed25519).
 *
 * @throws MalformedRecordError when `record.signer` is not a PeerId
 */
export function encodeSignedRecord (record: SignedRecord): Uint8Array {
  let signer: Uint8Array
  try {
    signer = multihashOfPeerId(record.signer)
  } catch (err) {
    throw new MalformedRecordError(`signer is not a PeerId: ${(err as Error).message}`)
  }
  return lengthPrefixed([signer, record.signature, record.payload], Uint8Array.of(SIGNED_RECORD_VERSION))
}

/**
 * Decodes `encodeSignedRecord` bytes. Does not check the signature (see `verifySignedRecord`).
 *
 * @throws MalformedRecordError on an unknown version, truncated or trailing bytes, absurd lengths or a bad signer
 */
export function decodeSignedRecord (bytes: Uint8Array): SignedRecord {
  if (!(bytes instanceof Uint8Array) || bytes.length === 0) throw new MalformedRecordError('empty record')
  if (bytes[0] !== SIGNED_RECORD_VERSION) throw new MalformedRecordError(`unknown record version ${bytes[0]}`)
  const parts: Uint8Array[] = []
  let o = 1
  for (const name of ['signer', 'signature', 'payload']) {
    const read = readVarint(bytes, o)
    if (read === undefined) throw new MalformedRecordError(`bad or truncated ${name} length`)
    const [len, next] = read
    if (len > MAX_RECORD_PAYLOAD_BYTES || next + len > bytes.length) throw new MalformedRecordError(`truncated ${name}`)
    parts.push(bytes.slice(next, next + len))
    o = next + len
  }
  if (o !== bytes.length) throw new MalformedRecordError(`${bytes.length - o} trailing bytes`)
  let signer: string
  try {
    signer = peerIdOfMultihash(parts[0])
  } catch (err) {
    throw new MalformedRecordError(`signer is not a PeerId multihash: ${(err as Error).message}`)
  }
  return { signer, signature: parts[1], payload: parts[2] }
}
