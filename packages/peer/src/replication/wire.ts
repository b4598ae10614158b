import { MAX_REPLICATION_MESSAGE_BYTES } from './constants.js'
import { ReplicationProtocolError } from './errors.js'

/**
 * A request to hold content of a job (UTF-8 JSON, one length-prefixed message each way):
 * - `inputs`: the spec (by CID) and what it names; `nonce` lets the replica check `computeJobId(creator, specCid,
 *   nonce) === jobId`, which binds the spec to the funded job.
 * - `outputs`: the manifest (by CID) and every output it lists.
 */
export type ReplicationRequest =
  | { kind: 'inputs', jobId: string, specCid: string, nonce: string }
  | { kind: 'outputs', jobId: string, manifestCid: string }

/** The answer: `ok` once everything is held and pinned, else the reason and the name of the error it was refused with. */
export type ReplicationAnswer = { ok: true } | { ok: false, reason: string, error?: string }

const ERROR_NAME = /^[A-Za-z]{1,64}$/

/** 32 bytes as lowercase 0x hex (job ids, nonces, digests). */
export const HEX32 = /^0x[0-9a-f]{64}$/
const CID_TEXT = /^[a-zA-Z0-9]{10,128}$/

/**
 * A message of the replication protocols (replication, hold proofs) as a JSON object.
 *
 * @throws ReplicationProtocolError (too large, not JSON, not an object)
 */
export function parseMessage (bytes: Uint8Array): Record<string, unknown> {
  if (bytes.byteLength > MAX_REPLICATION_MESSAGE_BYTES) {
    throw new ReplicationProtocolError(`message of ${bytes.byteLength} bytes (limit ${MAX_REPLICATION_MESSAGE_BYTES})`)
  }
  let v: unknown
  try {
    v = JSON.parse(new TextDecoder().decode(bytes))
  } catch (err) {
    throw new ReplicationProtocolError('message is not JSON', { cause: err })
  }
  if (v == null || typeof v !== 'object' || Array.isArray(v)) throw new ReplicationProtocolError('message is not an object')
  return v as Record<string, unknown>
}

export function encodeMessage (message: ReplicationRequest | ReplicationAnswer): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(message))
}

/** @throws ReplicationProtocolError */
export function decodeRequest (bytes: Uint8Array): ReplicationRequest {
  const v = parseMessage(bytes)
  const jobId = typeof v.jobId === 'string' ? v.jobId.toLowerCase() : ''
  if (!HEX32.test(jobId)) throw new ReplicationProtocolError('jobId is not 32 bytes of hex')
  if (v.kind === 'inputs') {
    if (typeof v.specCid !== 'string' || !CID_TEXT.test(v.specCid)) throw new ReplicationProtocolError('malformed specCid')
    if (typeof v.nonce !== 'string' || !/^[0-9]{1,78}$/.test(v.nonce)) throw new ReplicationProtocolError('nonce is not a decimal uint256')
    return { kind: 'inputs', jobId, specCid: v.specCid, nonce: v.nonce }
  }
  if (v.kind === 'outputs') {
    if (typeof v.manifestCid !== 'string' || !CID_TEXT.test(v.manifestCid)) throw new ReplicationProtocolError('malformed manifestCid')
    return { kind: 'outputs', jobId, manifestCid: v.manifestCid }
  }
  throw new ReplicationProtocolError(`unknown request kind ${String(v.kind)}`)
}

/** @throws ReplicationProtocolError */
export function decodeAnswer (bytes: Uint8Array): ReplicationAnswer {
  const v = parseMessage(bytes)
  if (v.ok === true) return { ok: true }
  if (v.ok === false) {
    const reason = typeof v.reason === 'string' ? v.reason.slice(0, 500) : 'refused'
    return typeof v.error === 'string' && ERROR_NAME.test(v.error) ? { ok: false, reason, error: v.error } : { ok: false, reason }
  }
  throw new ReplicationProtocolError('answer has no ok field')
}
