import { MS_PER_SECOND, TOKEN_DECIMALS, UINT32_MAX } from './constants.js'
import { InvalidArgumentError } from './errors.js'
import type { PricingParams } from '@jobmesh/contracts'

/** The network's pricing parameters (`JobEscrow.pricing()`); defined with the chain client in `@jobmesh/contracts`. */
export type { PricingParams }

function uint32 (v: number, name: string, min: number): bigint {
  if (!Number.isSafeInteger(v) || v < min || v > UINT32_MAX) throw new InvalidArgumentError(`${name} must be an integer in [${min}, ${UINT32_MAX}]`)
  return BigInt(v)
}

/**
 * The task value of a job, in wei per second: `floor(fee * 1000 / (overheadMs + microJobs * msPerMicroJob))`.
 * Only network parameters enter the estimated time, never the creator's own estimate; `microJobs` is the job's
 * size (`macroJobs * microJobsPerMacro`, committed on chain by the job root). The escrow computes the same integer
 * (`JobEscrow.taskValue`, `quoteTaskValue`), so peers, the SDK and the verification queue order tasks alike.
 *
 * @throws InvalidArgumentError for a negative fee, a non-positive or non-integer `microJobs`, or parameters that
 * are not uint32 (`msPerMicroJob` at least 1)
 */
export function taskValue (fee: bigint, microJobs: number | bigint, pricing: PricingParams): bigint {
  if (typeof fee !== 'bigint' || fee < 0n) throw new InvalidArgumentError('fee must be a non-negative bigint')
  const count = typeof microJobs === 'bigint' ? microJobs : (Number.isSafeInteger(microJobs) ? BigInt(microJobs) : -1n)
  if (count < 1n) throw new InvalidArgumentError('microJobs must be a positive integer')
  const estimatedMs = uint32(pricing.overheadMs, 'overheadMs', 0) + count * uint32(pricing.msPerMicroJob, 'msPerMicroJob', 1)
  return fee * MS_PER_SECOND / estimatedMs
}

/** A task value (wei per second) as tokens per second, for display only (never for ordering or payment). */
export function taskValueToNumber (value: bigint, decimals: number = TOKEN_DECIMALS): number {
  const unit = 10n ** BigInt(decimals)
  const whole = value / unit
  const frac = value % unit
  return Number(whole) + Number(frac) / Number(unit)
}
