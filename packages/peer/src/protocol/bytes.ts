import jsSha3 from 'js-sha3'
import { InvalidArgumentError } from './errors.js'

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'))
const BYTES32_RE = /^0x[0-9a-fA-F]{64}$/
const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/
const UINT256_MAX = (1n << 256n) - 1n

function nibble (code: number): number {
  if (code >= 48 && code <= 57) return code - 48
  if (code >= 97 && code <= 102) return code - 87
  if (code >= 65 && code <= 70) return code - 55
  return -1
}

/** Keccak-256 of `data` as 32 bytes. */
export function keccak256Bytes (data: Uint8Array): Uint8Array {
  return new Uint8Array(jsSha3.keccak256.arrayBuffer(data))
}

/** Lower-case 0x-prefixed hex of `bytes`. */
export function toHex (bytes: Uint8Array): string {
  let out = '0x'
  for (let i = 0; i < bytes.length; i++) out += HEX[bytes[i]]
  return out
}

/** Bytes of a 0x-prefixed hex string (even length). */
export function fromHex (hex: string): Uint8Array<ArrayBuffer> {
  if (!/^0x([0-9a-fA-F]{2})*$/.test(hex)) throw new InvalidArgumentError(`not a hex string: ${hex}`)
  const out = new Uint8Array((hex.length - 2) / 2)
  for (let i = 0; i < out.length; i++) out[i] = nibble(hex.charCodeAt(2 + 2 * i)) * 16 + nibble(hex.charCodeAt(3 + 2 * i))
  return out
}

/** Checks a 32-byte hex string and returns it lower-cased. */
export function assertBytes32 (value: string, what: string): string {
  if (typeof value !== 'string' || !BYTES32_RE.test(value)) throw new InvalidArgumentError(`${what} must be a 32-byte 0x hex string`)
  return value.toLowerCase()
}

/** Checks a 20-byte address and returns it lower-cased. */
export function assertAddress (value: string, what: string): string {
  if (typeof value !== 'string' || !ADDRESS_RE.test(value)) throw new InvalidArgumentError(`${what} must be a 0x address`)
  return value.toLowerCase()
}

/** Checks 0 <= value < 2^256. */
export function assertUint256 (value: bigint, what: string): bigint {
  if (typeof value !== 'bigint' || value < 0n || value > UINT256_MAX) throw new InvalidArgumentError(`${what} must be a uint256`)
  return value
}

/** Writes `value` as a big-endian 32-byte ABI word at `offset`. */
export function writeUint256 (out: Uint8Array, offset: number, value: bigint): void {
  let v = value
  for (let i = 31; i >= 0; i--) {
    out[offset + i] = Number(v & 0xffn)
    v >>= 8n
  }
}

/** Writes a small non-negative integer as a 32-byte ABI word at `offset` (fast path for indices). */
export function writeUint53 (out: Uint8Array, offset: number, value: number): void {
  out.fill(0, offset, offset + 24)
  let v = value
  for (let i = 31; i >= 24; i--) {
    out[offset + i] = v % 256
    v = Math.floor(v / 256)
  }
}

/** Writes 32 raw bytes given as (already checked) 0x hex at `offset`. */
export function writeBytes32 (out: Uint8Array, offset: number, hex: string): void {
  for (let i = 0; i < 32; i++) out[offset + i] = nibble(hex.charCodeAt(2 + 2 * i)) * 16 + nibble(hex.charCodeAt(3 + 2 * i))
}

/** Big-endian unsigned integer of `bytes`. */
export function bytesToBigInt (bytes: Uint8Array): bigint {
  return BigInt(toHex(bytes))
}
