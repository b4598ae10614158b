import { PRICE_TIME_UNITS_PER_SECOND, TOKEN_DECIMALS } from './constants.js'
import { InvalidArgumentError } from './errors.js'
import type { Estimate } from './job-spec.js'

/** `overheadSeconds + microJobCount * secondsPerMicroJob`. */
export function estimatedSeconds (estimate: Estimate, microJobCount: number): number {
  if (!Number.isSafeInteger(microJobCount) || microJobCount < 0) throw new InvalidArgumentError('microJobCount must be a non-negative integer')
  return estimate.overheadSeconds + microJobCount * estimate.secondsPerMicroJob
}

/**
 * Task value in wei per second, fixed point: the estimate is rounded to whole milliseconds (at least 1) and
 * `value = floor(price * 1000 / estimatedMilliseconds)`. Integer, so every peer and the contract order tasks alike.
 */
export function taskValue (price: bigint, estimatedSecs: number): bigint {
  if (typeof price !== 'bigint' || price < 0n) throw new InvalidArgumentError('price must be a non-negative bigint')
  if (!Number.isFinite(estimatedSecs) || estimatedSecs < 0) throw new InvalidArgumentError('estimatedSeconds must be a non-negative finite number')
  const millis = BigInt(Math.max(1, Math.round(estimatedSecs * Number(PRICE_TIME_UNITS_PER_SECOND))))
  return price * PRICE_TIME_UNITS_PER_SECOND / millis
}

/** A task value (wei per second) as tokens per second, for display only (never for ordering or payment). */
export function taskValueToNumber (value: bigint, decimals: number = TOKEN_DECIMALS): number {
  const unit = 10n ** BigInt(decimals)
  const whole = value / unit
  const frac = value % unit
  return Number(whole) + Number(frac) / Number(unit)
}
