import { AbiCoder, keccak256 } from 'ethers'
import { assertAddress, assertBytes32, assertUint256, keccak256Bytes, toHex, writeBytes32, writeUint256, writeUint53 } from './bytes.js'
import { InvalidArgumentError } from './errors.js'

const coder = AbiCoder.defaultAbiCoder()

function assertIndex (value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new InvalidArgumentError(`${what} must be a non-negative safe integer`)
}

/** `keccak256(abi.encode(address creator, string specCid, uint256 nonce))`. */
export function computeJobId (creator: string, specCid: string, nonce: bigint): string {
  const addr = assertAddress(creator, 'creator')
  assertUint256(nonce, 'nonce')
  return keccak256(coder.encode(['address', 'string', 'uint256'], [addr, specCid, nonce]))
}

/**
 * Hashes `abi.encode(uint256 seed, bytes32 parent, uint256 index)` for many indices without re-encoding the first
 * two words: the hot path of slicing. `hash(i)` returns the 32-byte hex id.
 */
export function idHasher (seed: bigint, parent: string): (index: number) => string {
  assertUint256(seed, 'seed')
  const p = assertBytes32(parent, 'parent id')
  const buf = new Uint8Array(96)
  writeUint256(buf, 0, seed)
  writeBytes32(buf, 32, p)
  return (index: number): string => {
    writeUint53(buf, 64, index)
    return toHex(keccak256Bytes(buf))
  }
}

/** `macroId(m) = keccak256(abi.encode(uint256 seed, bytes32 jobId, uint256 m))`. */
export function computeMacroId (seed: bigint, jobId: string, m: number): string {
  assertIndex(m, 'm')
  return idHasher(seed, jobId)(m)
}

/** `microId(m, i) = keccak256(abi.encode(uint256 seed, bytes32 macroId, uint256 i))`. */
export function computeMicroId (seed: bigint, macroId: string, i: number): string {
  assertIndex(i, 'i')
  return idHasher(seed, macroId)(i)
}
