import {
  DEFAULT_INITIAL_SCORE, DEFAULT_KICKOUT_SCORE, DEFAULT_QOS_WINDOW, MAX_SCORE,
  ROUND_SCORE_FIRST, ROUND_SCORE_LATER, ROUND_SCORE_SECOND, ROUND_SCORE_TIMEOUT
} from './constants.js'
import { InvalidArgumentError } from './errors.js'

/**
 * Round score in hundredths by submission position (1 = first): 1st 1000, 2nd 500, 3rd and later 200.
 * `undefined` (no submission before the round's timeout) scores 0.
 */
export function roundScore (position: number | undefined): number {
  if (position === undefined) return ROUND_SCORE_TIMEOUT
  if (!Number.isSafeInteger(position) || position < 1) throw new InvalidArgumentError('position must be an integer >= 1')
  if (position === 1) return ROUND_SCORE_FIRST
  if (position === 2) return ROUND_SCORE_SECOND
  return ROUND_SCORE_LATER
}

/** Task score in hundredths (0 .. 2000): commit-round score + reveal-round score. */
export function taskScore (commitPosition: number | undefined, revealPosition: number | undefined): number {
  return roundScore(commitPosition) + roundScore(revealPosition)
}

/** Options of the windowed score. */
export interface QosWindowInit {
  window?: number
  initialScore?: number
}

/**
 * Node score in hundredths: `floor(sum / count)` over the last `window` task scores (all of them when fewer);
 * `initialScore` (1000) with no history.
 */
export function windowedScore (history: readonly number[], init: QosWindowInit = {}): number {
  const window = init.window ?? DEFAULT_QOS_WINDOW
  if (!Number.isSafeInteger(window) || window < 1) throw new InvalidArgumentError('window must be a positive integer')
  const recent = history.slice(-window)
  if (recent.length === 0) return init.initialScore ?? DEFAULT_INITIAL_SCORE
  return Math.floor(recent.reduce((a, b) => a + b, 0) / recent.length)
}

/** Options of the kick-out predicate. */
export interface KickOutInit {
  window?: number
  threshold?: number
}

/** True when the node has a full window of tasks and its windowed score is below the threshold (400). */
export function shouldKickOut (history: readonly number[], init: KickOutInit = {}): boolean {
  const window = init.window ?? DEFAULT_QOS_WINDOW
  if (history.length < window) return false
  return windowedScore(history, { window }) < (init.threshold ?? DEFAULT_KICKOUT_SCORE)
}

/** B = score / max score (0 .. 1). */
export function qosRatio (score: number, maxScore: number = MAX_SCORE): number {
  return maxScore > 0 ? score / maxScore : 0
}

/** R = V / maxV (0 when maxV is 0). */
export function vramScore (vramGb: number, maxVramGb: number): number {
  return maxVramGb > 0 ? vramGb / maxVramGb : 0
}

/**
 * P = (maxO - O) / (maxO - minO), O = the node's timeout setting (on chain: percent of a commit window, minO 25,
 * maxO 100; a shorter timeout needs more stake). When `maxO == minO` every node is equal: P = 1.
 */
export function timeoutScore (timeout: number, minTimeout: number, maxTimeout: number): number {
  if (maxTimeout === minTimeout) return 1
  return (maxTimeout - timeout) / (maxTimeout - minTimeout)
}
