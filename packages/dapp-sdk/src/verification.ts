import type { SlicingSpec } from '@jobmesh/peer/protocol'

/**
 * The verification level of a job: the share of each MacroJob's MicroJobs that every verification round re-runs,
 * as a fraction in (0, 1], or `'full'` (every MicroJob). Default: one MicroJob per MacroJob (`1 / microJobsPerMacro`).
 */
export type VerificationLevel = number | 'full'

/** Upper bound on `macroJobs x samples` (the contract's `maxSampleLeaves` at its defaults). */
export const MAX_SAMPLE_LEAVES = 64

/** MicroJobs sampled per MacroJob for a level: `ceil(fraction * microJobsPerMacro)`, at least 1, at most all. */
export function samplesFor (level: VerificationLevel | undefined, microJobsPerMacro: number): number {
  if (level === undefined) return 1
  if (level === 'full') return microJobsPerMacro
  return Math.min(microJobsPerMacro, Math.max(1, Math.ceil(level * microJobsPerMacro)))
}

/** Why a level is not usable for a slicing, or undefined. */
export function verificationIssue (level: VerificationLevel | undefined, slicing: Partial<Pick<SlicingSpec, 'macroJobs' | 'microJobsPerMacro'>> | undefined): string | undefined {
  if (level !== undefined && level !== 'full' && !(typeof level === 'number' && level > 0 && level <= 1)) {
    return "verification must be a fraction in (0, 1] or 'full'"
  }
  const { macroJobs, microJobsPerMacro } = slicing ?? {}
  if (macroJobs === undefined || microJobsPerMacro === undefined) return undefined
  if (!Number.isSafeInteger(macroJobs) || !Number.isSafeInteger(microJobsPerMacro) || microJobsPerMacro < 1) return undefined
  const leaves = macroJobs * samplesFor(level, microJobsPerMacro)
  if (leaves > MAX_SAMPLE_LEAVES) {
    return `verification samples ${leaves} MicroJobs per round (macroJobs x samples), the escrow allows ${MAX_SAMPLE_LEAVES}`
  }
  return undefined
}

/**
 * The fee that pays processors `processorPay` in total at a verification level: the escrow pays every MicroJob run
 * and every verifier re-run alike (`processorPool = fee * P / (P + k * samples)`), so more verification costs
 * proportionally more: `fee = ceil(processorPay * (P + k * samples) / P)`.
 */
export function priceFor (processorPay: bigint, slicing: Pick<SlicingSpec, 'microJobsPerMacro'>, verifiers: number, level?: VerificationLevel): bigint {
  const P = BigInt(slicing.microJobsPerMacro)
  const units = P + BigInt(verifiers) * BigInt(samplesFor(level, slicing.microJobsPerMacro))
  return (processorPay * units + P - 1n) / P
}

/**
 * The probability that a verification round sees at least one of `wrong` wrong MicroJobs of one MacroJob placed as
 * badly as possible for the DApp (contiguously): `min(1, (wrong + samples - 1) / microJobsPerMacro)`.
 */
export function detectionProbability (wrong: number, microJobsPerMacro: number, samples: number): number {
  if (wrong <= 0) return 0
  return Math.min(1, (wrong + samples - 1) / microJobsPerMacro)
}
