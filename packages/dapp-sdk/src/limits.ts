import { MAX_MICROJOB_INPUT_BYTES, UINT32_MAX } from '@jobmesh/peer/protocol'
import { DEFAULT_MAX_CODE_BYTES } from '@jobmesh/peer/executor'
import { runTimeoutMs } from '@jobmesh/peer/processor'
import { sizeText } from '@jobmesh/peer/observe'
import { MaxUint256 } from 'ethers'
import type { JobIssue } from './errors.js'
import type { SubmitInput } from './spec.js'

// What a job may ask of the peers (the code and model they fetch, the time they give a run) and of the escrow (the
// widths of its fields), checked before anything is uploaded or paid.

/** Sizes in bytes of a submission's local content (bytes or files); undefined for content given as a URI. */
export interface ContentSizes {
  data?: number
  code?: number
  model?: number
}

/** Code larger than the peers fetch (the executor's {@link DEFAULT_MAX_CODE_BYTES}): no peer could run it. */
function codeSizeIssue (codeSize: number | undefined): JobIssue | undefined {
  if (codeSize === undefined || codeSize <= DEFAULT_MAX_CODE_BYTES) return undefined
  return { path: 'code', message: `code of ${codeSize} bytes is larger than the ${DEFAULT_MAX_CODE_BYTES} bytes (${sizeText(DEFAULT_MAX_CODE_BYTES)}) peers fetch: no peer could run it` }
}

/**
 * A model that does not fit a MicroJob's input with the MicroJob's blocks: peers hand the code `u32 length ‖ model ‖
 * blocks` and read at most {@link MAX_MICROJOB_INPUT_BYTES} per MicroJob (the model is fetched with that bound too).
 * Blocks that alone exceed it are the validator's to name (`slicing.blocksPerMicro`).
 */
function modelSizeIssue (input: Pick<SubmitInput, 'blockSize' | 'slicing'>, modelSize: number | undefined): JobIssue | undefined {
  if (modelSize === undefined) return undefined
  // nothing for the code to read: a file not written yet, or the wrong one (a job paid for it failed on every peer)
  if (modelSize === 0) return { path: 'model', message: 'the model is empty (0 bytes): a model is content the job\'s code reads, such as weights or a palette' }
  const bs = input.blockSize
  const perMicro = input.slicing?.blocksPerMicro
  const blocks = Number.isSafeInteger(bs) && Number.isSafeInteger(perMicro) ? bs * perMicro : 0
  if (blocks > MAX_MICROJOB_INPUT_BYTES) return undefined
  const total = 4 + modelSize + blocks
  if (total <= MAX_MICROJOB_INPUT_BYTES) return undefined
  return {
    path: 'model',
    message: `a model of ${modelSize} bytes does not fit a MicroJob's input: 4 (its length) + ${modelSize} (the model) + ${blocks} ` +
      `(${perMicro} blocks of ${bs} bytes) = ${total} bytes, and peers read at most ${MAX_MICROJOB_INPUT_BYTES} bytes ` +
      `(${sizeText(MAX_MICROJOB_INPUT_BYTES)}) per MicroJob, the model before its blocks`
  }
}

/**
 * A run-time estimate beyond the peers' limit of one run (`runTimeoutMs` of the peers' processor: a multiple of the
 * estimate, capped): every run would be stopped before its end, fail, and the job would end failed.
 */
function estimateIssue (secondsPerMicroJob: unknown): JobIssue | undefined {
  // not a positive finite number: the validator's to name
  if (typeof secondsPerMicroJob !== 'number' || !Number.isFinite(secondsPerMicroJob) || secondsPerMicroJob <= 0) return undefined
  const limitMs = runTimeoutMs({ estimate: { secondsPerMicroJob } })
  if (secondsPerMicroJob * 1000 <= limitMs) return undefined
  return {
    path: 'estimate.secondsPerMicroJob',
    message: `a MicroJob of ${secondsPerMicroJob} s outruns the peers' per-run limit of ${limitMs / 1000} s: the peers stop ` +
      'every run after that long, so every run would fail and the job end failed'
  }
}

/** What the escrow stores as a uint32, if it does not fit one (a whole number; negatives are the validator's). */
function uint32Issue (path: string, value: unknown, what: string): JobIssue | undefined {
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= UINT32_MAX) return undefined
  return { path, message: `must be at most ${UINT32_MAX} ${what}: the escrow stores a uint32` }
}

/**
 * Values wider than the escrow's `createJob` fields (ABI encoding would throw a TypeError after the upload): the
 * uint32 fields as they go on chain (`createJobParams` rounds minVramGb and secondsPerMicroJob up), and the uint256
 * nonce. (macroJobs, a uint32 too, is bounded far below by the verification's sample bound, `verificationIssue`.)
 */
function escrowWidthIssues (input: SubmitInput): JobIssue[] {
  const seconds = input.estimate?.secondsPerMicroJob
  const issues = [
    uint32Issue('requirements.minVramGb', input.requirements?.minVramGb, 'GB'),
    uint32Issue('estimate.secondsPerMicroJob', typeof seconds === 'number' ? Math.ceil(seconds) : undefined, 's'),
    uint32Issue('slicing.microJobsPerMacro', input.slicing?.microJobsPerMacro, 'MicroJobs per MacroJob')
  ].filter((i): i is JobIssue => i !== undefined)
  const nonce: unknown = input.nonce
  if (nonce !== undefined && (typeof nonce !== 'bigint' || nonce < 0n || nonce > MaxUint256)) {
    issues.push({ path: 'nonce', message: 'must be a uint256: a bigint in 0 .. 2^256 - 1 (the escrow stores a uint256)' })
  }
  return issues
}

/**
 * What the peers could never run (code or a model larger than they read, an estimate beyond their run limit) and
 * values the escrow cannot store; one issue per field (the peers' limit, the stricter, first).
 */
export function limitIssues (input: SubmitInput, sizes: ContentSizes): JobIssue[] {
  const issues = [
    codeSizeIssue(sizes.code),
    modelSizeIssue(input, sizes.model),
    estimateIssue(input.estimate?.secondsPerMicroJob)
  ].filter((i): i is JobIssue => i !== undefined)
  return [...issues, ...escrowWidthIssues(input).filter(w => !issues.some(i => i.path === w.path))]
}

