import { generateKeyPair } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { describe, expect, it } from 'vitest'
import {
  decodeSignedRecord, encodeSignedRecord, recordSigningMessage, signRecord, verifySignedRecord
} from '../../src/protocol/index.js'

const payload = new TextEncoder().encode('{"lease":{"term":3}}')

describe('signed records', async () => {
  const key = await generateKeyPair('Ed25519')
  const other = await generateKeyPair('Ed25519')
  const record = await signRecord(key, 'lease', payload)

  it('signs with the PeerId of the key and verifies synchronously', () => {
    expect(record.signer).toBe(peerIdFromPrivateKey(key).toString())
    const result = verifySignedRecord(record, 'lease')
    expect(result).toBe(true)
  })

  it('rejects a tampered payload, signature, signer or domain', () => {
    const badPayload = Uint8Array.from(payload)
    badPayload[0] ^= 1
    expect(verifySignedRecord({ ...record, payload: badPayload }, 'lease')).toBe(false)
    const badSig = Uint8Array.from(record.signature)
    badSig[10] ^= 1
    expect(verifySignedRecord({ ...record, signature: badSig }, 'lease')).toBe(false)
    expect(verifySignedRecord({ ...record, signature: badSig.subarray(1) }, 'lease')).toBe(false)
    expect(verifySignedRecord({ ...record, signer: peerIdFromPrivateKey(other).toString() }, 'lease')).toBe(false)
    expect(verifySignedRecord({ ...record, signer: 'not a peer id' }, 'lease')).toBe(false)
    expect(verifySignedRecord(record, 'result')).toBe(false)
  })

  it('length-prefixes the signed message so domain and payload cannot be shifted', () => {
    expect(recordSigningMessage('ab', new Uint8Array([1]))).not.toEqual(recordSigningMessage('a', new Uint8Array([0x62, 1])))
    expect(() => recordSigningMessage('', payload)).toThrow(expect.objectContaining({ name: 'InvalidDomainError' }))
  })

  it('round-trips through the compact binary form', () => {
    const bytes = encodeSignedRecord(record)
    // version + (1 + 38) signer multihash + (1 + 64) signature + (1 + payload)
    expect(bytes.length).toBe(1 + 39 + 65 + 1 + payload.length)
    const decoded = decodeSignedRecord(bytes)
    expect(decoded).toEqual(record)
    expect(verifySignedRecord(decoded, 'lease')).toBe(true)
  })

  it('round-trips an empty and a large payload', async () => {
    for (const p of [new Uint8Array(0), new Uint8Array(70_000).fill(7)]) {
      const r = await signRecord(other, 'result', p)
      const decoded = decodeSignedRecord(encodeSignedRecord(r))
      expect(decoded.payload).toEqual(p)
      expect(verifySignedRecord(decoded, 'result')).toBe(true)
    }
  })

  it('gives a typed error for malformed bytes', () => {
    const bytes = encodeSignedRecord(record)
    const malformed = [
      new Uint8Array(0),
      Uint8Array.of(2, ...bytes.subarray(1)), // unknown version
      bytes.subarray(0, bytes.length - 1), // truncated payload
      bytes.subarray(0, 20), // truncated signer
      Uint8Array.of(...bytes, 0), // trailing byte
      Uint8Array.of(1, 0xff, 0xff, 0xff, 0xff, 0x0f), // absurd length
      Uint8Array.of(1, 3, 0x00, 0x01, 0x00, 1, 0, 0) // signer is not a PeerId multihash
    ]
    for (const m of malformed) {
      expect(() => decodeSignedRecord(m)).toThrow(expect.objectContaining({ name: 'MalformedRecordError' }))
    }
    expect(() => encodeSignedRecord({ ...record, signer: 'nope' })).toThrow(expect.objectContaining({ name: 'MalformedRecordError' }))
  })
})
