import { createHash } from 'node:crypto'
import { CID } from 'multiformats/cid'
import { MAX_HOLD_PROOF_BLOCKS } from './constants.js'
import { ReplicationProtocolError } from './errors.js'
import { HEX32, parseMessage } from './wire.js'

/**
 * A challenge (UTF-8 JSON, one length-prefixed message each way): `nonce`, 32 bytes of hex drawn by the challenger,
 * and the CIDs of 1 to {@link MAX_HOLD_PROOF_BLOCKS} blocks the challenged peer says it holds.
 */
export interface HoldChallenge {
  nonce: string
  cids: CID[]
}

/** The answer: for each challenged CID in order, {@link holdProofDigest} of its block, or null for a block not held. */
export interface HoldProofAnswer {
  proofs: Array<string | null>
}

/** sha256 over the challenge's nonce and then the block's bytes, as 0x-prefixed hex: only a holder of the bytes has it. */
export function holdProofDigest (nonce: string, bytes: Uint8Array): string {
  return `0x${createHash('sha256').update(Buffer.from(nonce.slice(2), 'hex')).update(bytes).digest('hex')}`
}

export function encodeChallenge (challenge: HoldChallenge): Uint8Array {
  return new TextEncoder().encode(JSON.stringify({ nonce: challenge.nonce, cids: challenge.cids.map(c => c.toString()) }))
}

export function encodeProofAnswer (answer: HoldProofAnswer): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(answer))
}

/** @throws ReplicationProtocolError */
export function decodeChallenge (bytes: Uint8Array): HoldChallenge {
  const v = parseMessage(bytes)
  if (typeof v.nonce !== 'string' || !HEX32.test(v.nonce)) throw new ReplicationProtocolError('nonce is not 32 bytes of hex')
  if (!Array.isArray(v.cids) || v.cids.length === 0 || v.cids.length > MAX_HOLD_PROOF_BLOCKS) {
    throw new ReplicationProtocolError(`cids is not a list of 1 to ${MAX_HOLD_PROOF_BLOCKS} CIDs`)
  }
  const cids = v.cids.map((c: unknown) => {
    try {
      if (typeof c !== 'string') throw new Error('not a string')
      return CID.parse(c)
    } catch (err) {
      throw new ReplicationProtocolError(`malformed CID ${String(c).slice(0, 80)}`, { cause: err })
    }
  })
  return { nonce: v.nonce, cids }
}

/** @throws ReplicationProtocolError (malformed, or not one proof per challenged CID) */
export function decodeProofAnswer (bytes: Uint8Array, expected: number): HoldProofAnswer {
  const v = parseMessage(bytes)
  if (!Array.isArray(v.proofs) || v.proofs.length !== expected) {
    throw new ReplicationProtocolError(`proofs is not a list of ${expected} entries`)
  }
  const proofs = v.proofs.map((p: unknown) => {
    if (p === null) return null
    if (typeof p !== 'string' || !HEX32.test(p)) throw new ReplicationProtocolError('a proof is not 32 bytes of hex or null')
    return p
  })
  return { proofs }
}
