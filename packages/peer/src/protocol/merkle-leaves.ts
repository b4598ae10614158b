import { assertAddress, assertBytes32, assertUint256, keccak256Bytes, toHex, writeBytes32, writeUint256, writeUint53 } from './bytes.js'
import { InvalidArgumentError } from './errors.js'
import type { MicroJobDescriptor } from './slicing.js'

/** A leaf of the result tree: a MicroJob's position and the sha256 of its output bytes (32-byte hex). */
export interface ResultLeaf {
  microId: string
  macroIndex: number
  index: number
  outputHash: string
}

/** A leaf of the payout tree: wei owed to `payee` (0x address). */
export interface PayoutLeaf {
  payee: string
  amount: bigint
}

/** ABI types of each tree's leaves, for OpenZeppelin's `StandardMerkleTree` and for the contracts. */
export const JOB_LEAF_TYPES = ['bytes32', 'uint256', 'uint256', 'uint256', 'uint256'] as const
export const RESULT_LEAF_TYPES = ['bytes32', 'uint256', 'uint256', 'bytes32'] as const
export const PAYOUT_LEAF_TYPES = ['address', 'uint256'] as const

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

/** `keccak256(keccak256(abi.encode(microId, macroIndex, index, outputHash)))` as bytes. */
export function resultLeafHashBytes (r: ResultLeaf): Uint8Array {
  const buf = new Uint8Array(128)
  writeBytes32(buf, 0, assertBytes32(r.microId, 'microId'))
  uint(buf, 32, r.macroIndex, 'macroIndex')
  uint(buf, 64, r.index, 'index')
  writeBytes32(buf, 96, assertBytes32(r.outputHash, 'outputHash'))
  return doubleHash(buf)
}

/** `keccak256(keccak256(abi.encode(payee, amount)))` as bytes. */
export function payoutLeafHashBytes (p: PayoutLeaf): Uint8Array {
  const buf = new Uint8Array(64)
  const payee = assertAddress(p.payee, 'payee')
  writeBytes32(buf, 0, `0x${'0'.repeat(24)}${payee.slice(2)}`)
  writeUint256(buf, 32, assertUint256(p.amount, 'amount'))
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

/** Payout-tree leaf hash (hex). */
export function payoutLeafHash (p: PayoutLeaf): string {
  return toHex(payoutLeafHashBytes(p))
}
