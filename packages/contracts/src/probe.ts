import { AbiCoder, keccak256 } from 'ethers'

/** Leading zero bits a probe answer's hash needs (`NodeRegistry.PROBE_DIFFICULTY`). */
export const PROBE_DIFFICULTY = 12

/** Blocks a node has to answer its probe (`NodeRegistry.PROBE_WINDOW`). */
export const PROBE_WINDOW = 20

const coder = AbiCoder.defaultAbiCoder()

/** True when `nonce` answers `challenge` for `node`: keccak256(abi.encode(challenge, node, nonce)) has the leading zero bits. */
export function isProbeAnswer (challenge: string, node: string, nonce: bigint, difficulty = PROBE_DIFFICULTY): boolean {
  return BigInt(keccak256(coder.encode(['bytes32', 'address', 'uint256'], [challenge, node, nonce]))) >> BigInt(256 - difficulty) === 0n
}

/**
 * The smallest nonce answering a probe (about 2^difficulty hashes: ~4 096 at the network's difficulty, tens of ms).
 * Checks `signal` every 1 024 tries.
 */
export function solveProbe (challenge: string, node: string, options: { difficulty?: number, signal?: AbortSignal } = {}): bigint {
  for (let nonce = 0n; ; nonce++) {
    if ((nonce & 1023n) === 0n) options.signal?.throwIfAborted()
    if (isProbeAnswer(challenge, node, nonce, options.difficulty)) return nonce
  }
}
