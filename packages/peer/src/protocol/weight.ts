import { DEFAULT_STAKE_CAP, MAX_SCORE, WEIGHT_SCALE } from './constants.js'

/** What the selection weight needs to know about a node. `score` is the windowed QoS score in hundredths. */
export interface WeightInput {
  stake: bigint
  score: number
  /** True when the node's last model equals the job's model (M = 2), else M = 1. */
  sameModel: boolean
}

/** Network maxima for the seed's exact form. */
export interface NetworkMaxima {
  maxStake: bigint
  maxScore: number
}

/** Caps for the contract's form. */
export interface WeightCaps {
  stakeCap?: bigint
  maxScore?: number
}

/**
 * The seed's exact form (floats): `S = stake / maxStake`, `Q = score / maxScore` (both over the network maxima),
 * `W = M * S * Q / (1 + Q)`: linear in the stake (splitting a stake gains nothing), saturating in the score.
 */
export function seedWeight (node: WeightInput, maxima: NetworkMaxima): number {
  const S = maxima.maxStake > 0n ? Number(node.stake) / Number(maxima.maxStake) : 0
  const Q = maxima.maxScore > 0 ? node.score / maxima.maxScore : 0
  return (node.sameModel ? 2 : 1) * S * Q / (1 + Q)
}

/**
 * The contract's cap-normalised integer form: `S = min(stake, STAKE_CAP) * SCALE / STAKE_CAP`,
 * `Q = min(score, MAX_SCORE) * SCALE / MAX_SCORE`, `W = M * S * Q / (SCALE + Q)` (integer division, left to right),
 * `SCALE = 1_000_000`. Linear in the stake below the cap, so one stake split over several nodes weighs no more in
 * total (NodeRegistry.selectionWeight).
 */
export function contractWeight (node: WeightInput, caps: WeightCaps = {}): bigint {
  const stakeCap = caps.stakeCap ?? DEFAULT_STAKE_CAP
  const maxScore = BigInt(caps.maxScore ?? MAX_SCORE)
  const stake = node.stake < 0n ? 0n : node.stake
  const score = BigInt(Math.max(0, Math.floor(node.score)))
  const S = (stake < stakeCap ? stake : stakeCap) * WEIGHT_SCALE / stakeCap
  const Q = (score < maxScore ? score : maxScore) * WEIGHT_SCALE / maxScore
  return (node.sameModel ? 2n : 1n) * S * Q / (WEIGHT_SCALE + Q)
}
