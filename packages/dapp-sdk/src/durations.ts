import { InvalidConfigError } from './errors.js'

/** Node's timers take at most this many ms; a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1

/**
 * Checks a duration option in ms: a finite number from `min` to what a timer takes (a NaN, negative or 0 interval
 * polled the chain in a tight loop; a NaN timeout ended at once).
 *
 * @throws InvalidConfigError naming the option
 */
export function checkDuration (name: string, ms: number, min = 1): number {
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < min || ms > MAX_TIMER_MS) {
    throw new InvalidConfigError(`${name} must be a number of ms from ${min} to ${MAX_TIMER_MS}, not ${String(ms)}`)
  }
  return ms
}
