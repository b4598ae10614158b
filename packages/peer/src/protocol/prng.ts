import { assertBytes32, assertUint256, bytesToBigInt, keccak256Bytes, writeUint256 } from './bytes.js'
import { InvalidArgumentError, NotEnoughCandidatesError } from './errors.js'

/** A deterministic keccak PRNG: the n-th output (from 0) is `uint256(keccak256(abi.encode(uint256 seed, uint256 n)))`. */
export interface Prng {
  next(): bigint
}

/** Creates a PRNG from a uint256 seed (bigint) or a 32-byte hex seed (read as a big-endian uint256). */
export function createPrng (seed: bigint | string): Prng {
  const s = typeof seed === 'string' ? BigInt(assertBytes32(seed, 'seed')) : assertUint256(seed, 'seed')
  const buf = new Uint8Array(64)
  writeUint256(buf, 0, s)
  let counter = 0n
  return {
    next (): bigint {
      writeUint256(buf, 32, counter++)
      return bytesToBigInt(keccak256Bytes(buf))
    }
  }
}

/**
 * Picks an index with probability `weights[i] / sum(weights)`: `r = prng.next() % sum`, the answer is the first `i`
 * whose cumulative weight `weights[0] + ... + weights[i]` exceeds `r` (what a sum tree's descent gives on chain).
 *
 * @throws NotEnoughCandidatesError when no weight is positive
 */
export function weightedChoice (weights: readonly bigint[], prng: Prng): number {
  let total = 0n
  for (const w of weights) {
    if (w < 0n) throw new InvalidArgumentError('weights must be non-negative')
    total += w
  }
  if (total === 0n) throw new NotEnoughCandidatesError('no candidate has a positive weight')
  const r = prng.next() % total
  let acc = 0n
  for (let i = 0; i < weights.length; i++) {
    acc += weights[i]
    if (r < acc) return i
  }
  throw new NotEnoughCandidatesError('unreachable: cumulative weight did not exceed r')
}

/**
 * Draws `k` distinct indices by weight: each draw is a `weightedChoice` (one `prng.next()`), after which the chosen
 * index's weight is set to 0. Indices in `exclude` (e.g. the submitter) start at weight 0.
 *
 * @throws NotEnoughCandidatesError when fewer than `k` indices have positive weight
 */
export function drawDistinct (weights: readonly bigint[], k: number, prng: Prng, exclude: Iterable<number> = []): number[] {
  const w = [...weights]
  for (const i of exclude) {
    if (i >= 0 && i < w.length) w[i] = 0n
  }
  const available = w.filter(x => x > 0n).length
  if (available < k) throw new NotEnoughCandidatesError(`need ${k} candidates, ${available} have positive weight`)
  const chosen: number[] = []
  for (let j = 0; j < k; j++) {
    const i = weightedChoice(w, prng)
    chosen.push(i)
    w[i] = 0n
  }
  return chosen
}
