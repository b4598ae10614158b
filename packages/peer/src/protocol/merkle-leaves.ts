import { assertAddress, assertBytes32, keccak256Bytes, toHex, writeBytes32, writeUint53 } from './bytes.js'
import { InvalidArgumentError } from './errors.js'
import type { MicroJobDescriptor } from './slicing.js'

/**
 * A leaf of the result tree: a MicroJob's position, the sha256 of its output bytes (32-byte hex) and `payee`, the
 * wallet (0x address) paid for it: the owner of the PeerId that signed the counting result.
 */
export interface ResultLeaf {
  microId: string
  macroIndex: number
  index: number
  outputHash: string
  payee: string
}

/** ABI types of each tree's leaves, for OpenZeppelin's `StandardMerkleTree` and for the contracts. */
export const JOB_LEAF_TYPES = ['bytes32', 'uint256', 'uint256', 'uint256', 'uint256'] as const
export const RESULT_LEAF_TYPES = ['bytes32', 'uint256', 'uint256', 'bytes32', 'address'] as const

function uint (out: Uint8Array, offset: number, value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new InvalidArgumentError(`${what} must be a non-negative safe integer`)
  writeUint53(out, offset, value)
}

function doubleHash (encoded: Uint8Array): Uint8Array {
  return keccak256Bytes(keccak256Bytes(encoded))
}

/** `keccak256(keccak256(abi.encode(microId, macroIndex, index, start, end)))` as bytes. */
export function jobLeafHashBytes (d: MicroJobDescriptor): Uint8Array {
  const buf = new Uint8Array(160)
  writeBytes32(buf, 0, assertBytes32(d.microId, 'microId'))
  uint(buf, 32, d.macroIndex, 'macroIndex')
  uint(buf, 64, d.index, 'index')
  uint(buf, 96, d.start, 'start')
  uint(buf, 128, d.end, 'end')
  return doubleHash(buf)
}

/** `keccak256(keccak256(abi.encode(microId, macroIndex, index, outputHash, payee)))` as bytes. */
export function resultLeafHashBytes (r: ResultLeaf): Uint8Array {
  const buf = new Uint8Array(160)
  writeBytes32(buf, 0, assertBytes32(r.microId, 'microId'))
  uint(buf, 32, r.macroIndex, 'macroIndex')
  uint(buf, 64, r.index, 'index')
  writeBytes32(buf, 96, assertBytes32(r.outputHash, 'outputHash'))
  const payee = assertAddress(r.payee, 'payee')
  writeBytes32(buf, 128, `0x${'0'.repeat(24)}${payee.slice(2)}`)
  return doubleHash(buf)
}

/** Job-tree leaf hash (hex) of a MicroJob descriptor. */
export function jobLeafHash (d: MicroJobDescriptor): string {
  return toHex(jobLeafHashBytes(d))
}

/** Result-tree leaf hash (hex). */
export function resultLeafHash (r: ResultLeaf): string {
  return toHex(resultLeafHashBytes(r))
}

