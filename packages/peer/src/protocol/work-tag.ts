import { assertBytes32, keccak256Bytes, writeBytes32 } from './bytes.js'
import { InvalidArgumentError } from './errors.js'

/** Bytes of a work tag: 128 bits, so a guess is right with probability 2^-128. */
export const WORK_TAG_BYTES = 16

const DOMAIN = new TextEncoder().encode('jobmesh/work-tag/v1')

/**
 * A processor's proof that it ran a MicroJob: `keccak256("jobmesh/work-tag/v1" ‖ digest ‖ utf8(signer))`, first 16
 * bytes, where `digest` is the run's execution digest (bytes32: the module's memory after the run, which the public
 * output does not give) and `signer` the PeerId that signs the result. Each result record carries it
 * (docs/settlement.md, Work tags): a peer that copies another peer's output hash cannot make the tag for its own
 * PeerId without running the MicroJob, and a verifier or finalizer that re-ran it checks the tag.
 */
export function workTag (digest: string, signer: string): Uint8Array<ArrayBuffer> {
  const d = assertBytes32(digest, 'digest')
  if (typeof signer !== 'string' || signer.length === 0) throw new InvalidArgumentError('signer must be a PeerId string')
  const who = new TextEncoder().encode(signer)
  const buf = new Uint8Array(DOMAIN.length + 32 + who.length)
  buf.set(DOMAIN, 0)
  writeBytes32(buf, DOMAIN.length, d)
  buf.set(who, DOMAIN.length + 32)
  return new Uint8Array(keccak256Bytes(buf).subarray(0, WORK_TAG_BYTES))
}

/** Whether `tag` is the work tag of a run with execution digest `digest` signed by `signer` (no tag: false). */
export function isWorkTag (tag: Uint8Array | undefined, digest: string, signer: string): boolean {
  if (tag == null || tag.byteLength !== WORK_TAG_BYTES) return false
  const expected = workTag(digest, signer)
  return expected.every((b, i) => b === tag[i])
}
