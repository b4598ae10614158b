import { getAddress } from 'ethers'
import { z } from 'zod'
import {
  ALLOWED_URI_SCHEMES, DEFAULT_VERIFIERS, JOB_SPEC_VERSION, MAX_MICROJOB_INPUT_BYTES, MAX_MICROJOB_OUTPUT_BYTES, MAX_VERIFIERS_ENCODABLE,
  MIN_VERIFIERS
} from './constants.js'
import { InvalidJobSpecError } from './errors.js'
import { slicingMismatch } from './slicing-fit.js'
import type { SpecIssue } from './errors.js'

/** How a Job is cut: `macroJobs * microJobsPerMacro` MicroJobs of `blocksPerMicro` blocks (the last may be shorter). */
export interface SlicingSpec {
  macroJobs: number
  microJobsPerMacro: number
  blocksPerMicro: number
}

/** Hardware a node needs to run (or verify) the job. No `gpuModel` means any GPU model ("Any" group). */
export interface Requirements {
  minVramGb: number
  gpuModel?: string
  modelId?: string
}

/**
 * The DApp's run-time hint: seconds one MicroJob runs. It bounds a run (the processor's run timeout) and sizes the
 * verifiers' commit window; it does not enter the task value, which uses the network's constants (`taskValue`).
 * `maxOutputBytes`, when given, is the most bytes one MicroJob outputs: every run of the job (processors, verifiers, a
 * finalizer's stand-ins) fails past it, and peers that bound what one job may make them hold read the job's total
 * from it ({@link jobOutputBound}).
 */
export interface Estimate {
  secondsPerMicroJob: number
  maxOutputBytes?: number
}

/**
 * A Job as written by a DApp (DESIGN section 4). Content-addressed: the CID of `encodeJobSpec(spec)` is the spec CID.
 * Amounts are wei, `seed` is a uint256, `deadline` is unix milliseconds, `creator` is a lower-case 0x address.
 */
export interface JobSpec {
  version: number
  creator: string
  codeUri: string
  dataUri: string
  blockSize: number
  blockCount: number
  slicing: SlicingSpec
  seed: bigint
  requirements: Requirements
  price: bigint
  estimate: Estimate
  verifiers: number
  deadline: number
}

const UINT256_MAX = (1n << 256n) - 1n

const positiveInt = z.int().positive()

const uint256 = z.union([
  z.bigint(),
  z.string().regex(/^(0|[1-9][0-9]*)$/, 'expected a decimal integer string').transform(s => BigInt(s)),
  z.string().regex(/^0x[0-9a-fA-F]{1,64}$/, 'expected a 0x hex integer of at most 32 bytes').transform(s => BigInt(s))
], { error: 'expected a uint256 as bigint, decimal string or 0x hex string' })
  .refine(v => v >= 0n && v <= UINT256_MAX, 'must be in 0 .. 2^256 - 1')

const wei = z.union([
  z.bigint(),
  z.string().regex(/^(0|[1-9][0-9]*)$/, 'expected a decimal integer string').transform(s => BigInt(s))
], { error: 'expected a whole amount in wei: a bigint or a string of digits (0.01 ETH is 10000000000000000n; ethers\' parseEther("0.01") gives it)' })

const uri = z.string().refine(
  s => ALLOWED_URI_SCHEMES.some(scheme => s.startsWith(`${scheme}//`) && s.length > scheme.length + 2),
  `unknown URI scheme: allowed are ${ALLOWED_URI_SCHEMES.map(s => `${s}//`).join(', ')}`
)

const address = z.string()
  .regex(/^0x[0-9a-fA-F]{40}$/, { error: 'expected a 0x address of 20 bytes', abort: true })
  .refine(s => {
    try {
      getAddress(s)
      return true
    } catch {
      return false
    }
  }, 'bad address checksum')
  .transform(s => s.toLowerCase())

const schema = z.strictObject({
  version: z.literal(JOB_SPEC_VERSION).default(JOB_SPEC_VERSION),
  creator: address,
  codeUri: uri,
  dataUri: uri,
  blockSize: positiveInt,
  blockCount: positiveInt,
  slicing: z.strictObject({
    macroJobs: positiveInt,
    microJobsPerMacro: positiveInt,
    blocksPerMicro: positiveInt
  }),
  seed: uint256,
  requirements: z.strictObject({
    minVramGb: z.number().nonnegative().finite(),
    gpuModel: z.string().min(1).optional(),
    modelId: z.string().min(1).optional()
  }).default({ minVramGb: 0 }),
  price: wei.refine(v => v > 0n, 'price must be positive'),
  estimate: z.strictObject({
    secondsPerMicroJob: z.number().positive().finite(),
    maxOutputBytes: z.int().positive().max(MAX_MICROJOB_OUTPUT_BYTES, `a MicroJob's output is at most ${MAX_MICROJOB_OUTPUT_BYTES} bytes (64 MiB) on every peer`).optional()
  }),
  verifiers: z.int()
    .min(MIN_VERIFIERS, `k (verifiers) must be at least ${MIN_VERIFIERS}: a majority of them must outvote one wrong or lying verifier`)
    .max(MAX_VERIFIERS_ENCODABLE, `k (verifiers) must be at most ${MAX_VERIFIERS_ENCODABLE}: the escrow stores k as a uint8 (a deployment allows fewer: its maxVerifiers)`)
    .default(DEFAULT_VERIFIERS),
  deadline: positiveInt
})

/**
 * Checks that the slicing covers `blockCount` exactly: MicroJob `g` (global index `m * microJobsPerMacro + i`)
 * covers `[g * blocksPerMicro, min((g + 1) * blocksPerMicro, blockCount))`, so the number of MicroJobs must equal
 * `ceil(blockCount / blocksPerMicro)`: only the last MicroJob may be shorter, none is empty, no block is left out.
 */
function slicingIssues (input: unknown): SpecIssue[] {
  if (typeof input !== 'object' || input === null) return []
  const { blockCount, blockSize, slicing } = input as { blockCount?: unknown, blockSize?: unknown, slicing?: Partial<SlicingSpec> }
  if (typeof slicing !== 'object' || slicing === null) return []
  const message = slicingMismatch(slicing, blockCount as number, Number.isSafeInteger(blockSize) ? blockSize as number : undefined)
  return message === undefined ? [] : [{ path: 'slicing', message }]
}

/** A MicroJob's input (`blockSize x blocksPerMicro`) above what any peer reads ({@link MAX_MICROJOB_INPUT_BYTES}). */
function inputSizeIssues (input: unknown): SpecIssue[] {
  if (typeof input !== 'object' || input === null) return []
  const { blockSize, slicing } = input as { blockSize?: unknown, slicing?: { blocksPerMicro?: unknown } }
  const perMicro = slicing?.blocksPerMicro
  if (!Number.isSafeInteger(blockSize) || !Number.isSafeInteger(perMicro)) return []
  const bytes = (blockSize as number) * (perMicro as number)
  if (bytes <= MAX_MICROJOB_INPUT_BYTES) return []
  return [{
    path: 'slicing.blocksPerMicro',
    message: `a MicroJob would read ${perMicro as number} blocks of ${blockSize as number} bytes (${bytes} bytes); peers read at most ${MAX_MICROJOB_INPUT_BYTES} bytes (256 MiB) per MicroJob`
  }]
}

/**
 * Validates external input as a JobSpec. Amounts (`price`) are accepted as bigint or decimal strings, `seed` as
 * bigint, decimal or 0x hex string; `version`, `verifiers` (3) and `requirements` (`{ minVramGb: 0 }`) have
 * defaults. Unknown keys are rejected. The deadline is not compared with the clock (this is pure).
 *
 * @throws InvalidJobSpecError listing every bad field
 */
export function parseJobSpec (input: unknown): JobSpec {
  const result = schema.safeParse(input)
  const issues: SpecIssue[] = result.success
    ? []
    : result.error.issues.map(issue => ({ path: issue.path.map(String).join('.'), message: issue.message }))
  issues.push(...slicingIssues(input), ...inputSizeIssues(input))
  if (issues.length > 0 || !result.success) throw new InvalidJobSpecError(issues)
  const spec = result.data
  const requirements: Requirements = { minVramGb: spec.requirements.minVramGb }
  if (spec.requirements.gpuModel !== undefined) requirements.gpuModel = spec.requirements.gpuModel
  if (spec.requirements.modelId !== undefined) requirements.modelId = spec.requirements.modelId
  return { ...spec, slicing: { ...spec.slicing }, estimate: { ...spec.estimate }, requirements }
}

/** Number of MicroJobs in a spec (`macroJobs * microJobsPerMacro`). */
export function microJobCount (spec: Pick<JobSpec, 'slicing'>): number {
  return spec.slicing.macroJobs * spec.slicing.microJobsPerMacro
}

/** The most bytes one MicroJob of the job outputs: its `estimate.maxOutputBytes`, else {@link MAX_MICROJOB_OUTPUT_BYTES}. */
export function microJobOutputBound (spec: Pick<JobSpec, 'estimate'>): number {
  return spec.estimate.maxOutputBytes ?? MAX_MICROJOB_OUTPUT_BYTES
}

/** The most bytes all of a job's outputs come to: MicroJobs x {@link microJobOutputBound}. */
export function jobOutputBound (spec: Pick<JobSpec, 'slicing' | 'estimate'>): number {
  return microJobCount(spec) * microJobOutputBound(spec)
}

/**
 * The model a job's code reads, when the job names one the peers can fetch: `requirements.modelId` as an `ipfs://`
 * URI. Other model ids (a name such as `sdxl`) are matched by name only; nothing is fetched for them.
 */
export function jobModelUri (spec: { requirements?: { modelId?: string } }): string | undefined {
  const model = spec.requirements?.modelId
  return model?.startsWith('ipfs://') === true ? model : undefined
}
