import { randomBytes } from 'node:crypto'
import { stat } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { minimumJobFee } from '@jobmesh/contracts'
import { DEADLINE_MARGIN_MS, parseJobSpec, slicingMismatch } from '@jobmesh/peer/protocol'
import { fileProblem } from '@jobmesh/peer/file-problem'
import { parseContentUri } from '@jobmesh/peer/storage'
import { DEFAULT_DEADLINE_MS, DEFAULT_SECONDS_PER_MICRO_JOB, DEFAULT_VERIFIERS } from './constants.js'
import { InvalidJobError, UploadError } from './errors.js'
import { underfundedText } from './funding.js'
import { samplesFor, verificationIssue } from './verification.js'
import { limitIssues } from './limits.js'
import type { ContentSizes } from './limits.js'
import { isContentUri } from './content.js'
import type { ContentInput } from './content.js'
import type { JobIssue } from './errors.js'
import type { VerificationLevel } from './verification.js'
import type { Estimate, JobSpec, Requirements, SlicingSpec } from '@jobmesh/peer/protocol'
import type { JobLimits } from '@jobmesh/contracts'

/** What a DApp describes to {@link JobClient.submit}. */
export interface SubmitInput {
  /** The job's WebAssembly module: bytes or a file path (uploaded to IPFS), or a URI (used as is). */
  code: ContentInput
  /** The job's input data: bytes or a file path (uploaded), or a URI (then `blockCount` is required). */
  data: ContentInput
  /** Bytes per data block. */
  blockSize: number
  /** Number of data blocks; default `ceil(dataSize / blockSize)`. Required when `data` is a URI. */
  blockCount?: number
  /** How the job is cut into MacroJobs and MicroJobs (must cover the blocks exactly, docs/protocol.md). */
  slicing: SlicingSpec
  /**
   * The fee in wei, paid into the escrow (bigint or decimal string). It pays every MicroJob run and every verifier
   * re-run alike: processors share `price * P / (P + k * samples)`; {@link priceFor} gives the price for a wanted
   * processor pay at a verification level.
   */
  price: bigint | string
  /** Hardware peers need; default `{ minVramGb: 0 }` (the "Any" group). */
  requirements?: Requirements
  /**
   * The model the job's code reads (weights, a palette, a data set): bytes or a file (uploaded to IPFS) or an
   * `ipfs://` URI. It becomes `requirements.modelId`: the peers that hold it run the job first, and the code gets it
   * before its data (`u32 length ‖ model ‖ blocks`, docs/protocol.md). Not with `requirements.modelId`.
   */
  model?: ContentInput
  /**
   * Run-time hint: seconds one MicroJob runs (default {@link DEFAULT_SECONDS_PER_MICRO_JOB}). It bounds each run and
   * sizes the verifiers' commit window; it does not change the task value (network constants, `taskValue`).
   */
  estimate?: Partial<Estimate>
  /** Verifiers k; default {@link DEFAULT_VERIFIERS}. */
  verifiers?: number
  /**
   * Verification level: the share of each MacroJob's MicroJobs every verification round re-runs (a fraction in
   * (0, 1], rounded up to whole MicroJobs), or `'full'`. Default: one MicroJob per MacroJob. What `results()`
   * guarantees at each level: docs/sdk.md.
   */
  verification?: VerificationLevel
  /**
   * Unix ms (or a Date) after which the job may be refunded; default the chain's latest block time +
   * {@link DEFAULT_DEADLINE_MS}. It is checked against the chain's clock (the escrow's), not this machine's.
   */
  deadline?: number | Date
  /** Instead of `deadline`: ms after the chain's latest block (its clock may differ from this machine's). */
  deadlineAfterMs?: number
  /** Seed of the MicroJob ids (uint256); default random. */
  seed?: bigint | string
  /** Nonce of the job id (uint256); default random. */
  nonce?: bigint
}

// every field of SubmitInput (the compiler keeps this list whole): a field not in it is a typo that would pay for a
// job other than the one meant (`requirments` left the requirements at their default)
const SUBMIT_FIELDS: Record<keyof SubmitInput, true> = {
  code: true, data: true, blockSize: true, blockCount: true, slicing: true, price: true, requirements: true, model: true,
  estimate: true, verifiers: true, verification: true, deadline: true, deadlineAfterMs: true, seed: true, nonce: true
}

// and of its estimate, whose fields are copied one by one into the spec (a misspelt one was dropped: the default ran)
const ESTIMATE_FIELDS: Record<keyof Estimate, true> = { secondsPerMicroJob: true, maxOutputBytes: true }

// requirements and slicing are checked by the JobSpec validator too, but only after the upload, and without a hint
const REQUIREMENT_FIELDS: Record<keyof Requirements, true> = { minVramGb: true, gpuModel: true, modelId: true }
const SLICING_FIELDS: Record<keyof SlicingSpec, true> = { macroJobs: true, microJobsPerMacro: true, blocksPerMicro: true }

/** The fields of the input (and of its estimate) that are no field of a job, with the one each likely misspells. */
function unknownFieldIssues (input: SubmitInput): JobIssue[] {
  const inner = (value: unknown, known: Record<string, true>, prefix: string): JobIssue[] =>
    typeof value === 'object' && value !== null ? unknownFields(value, known, prefix) : []
  return [...unknownFields(input, SUBMIT_FIELDS, ''), ...inner(input.estimate, ESTIMATE_FIELDS, 'estimate.'),
    ...inner(input.requirements, REQUIREMENT_FIELDS, 'requirements.'), ...inner(input.slicing, SLICING_FIELDS, 'slicing.')]
}

function unknownFields (value: object, known: Record<string, true>, prefix: string): JobIssue[] {
  return Object.keys(value).filter(key => !Object.hasOwn(known, key)).map(key => {
    const near = Object.keys(known).find(field => looksLike(field.toLowerCase(), key.toLowerCase()))
    return { path: `${prefix}${key}`, message: `unknown field${near === undefined ? '' : ` (did you mean "${near}"?)`}: not part of a job` }
  })
}

/** A misspelling (two edits at most) or a shortening (`gpu` for `gpuModel`) of `field`. */
function looksLike (field: string, key: string): boolean {
  return editDistance(field, key) <= 2 || (key.length >= 3 && field.startsWith(key))
}

/** Levenshtein distance: insertions, deletions and substitutions. */
function editDistance (a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const next = [i]
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
    row = next
  }
  return row[b.length]
}

/** Random uint256. */
export function randomUint256 (): bigint {
  return BigInt(`0x${randomBytes(32).toString('hex')}`)
}

/** Size of local content (bytes or a file), or undefined for a URI. */
export async function localSize (input: ContentInput, what: string): Promise<number | undefined> {
  if (input instanceof Uint8Array) return input.byteLength
  if (typeof input !== 'string' || isContentUri(input)) return undefined
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(input)?.[1]
  if (scheme != null && scheme.toLowerCase() !== 'file') {
    throw new UploadError(`cannot read ${what} ${input}: ${scheme}:// is not a scheme jobmesh reads (a file, ipfs:// or https://)`)
  }
  const path = input.startsWith('file://') ? fileURLToPath(input) : input
  let s
  try {
    s = await stat(path)
  } catch (err) {
    throw new UploadError(`cannot read ${what} ${path}: ${fileProblem(err)}`, { cause: err })
  }
  if (!s.isFile()) throw new UploadError(`cannot read ${what} ${path}: it is ${s.isDirectory() ? 'a directory' : 'not a regular file'}`)
  return s.size
}

/** The parts of a spec decided before the upload (seed and deadline fixed once, so both builds agree). */
export interface SpecDraft {
  input: SubmitInput
  creator: string
  seed: bigint | string
  deadline: number
  blockCount: number | undefined
  issues: JobIssue[]
}

/**
 * What is wrong with a deadline at `now`, if anything: past, or closer than {@link DEADLINE_MARGIN_MS} (the peers stop
 * working on a job that long before its deadline: funded, it would be locked until then with nothing done).
 */
export function deadlineIssue (deadline: number, now: number): JobIssue | undefined {
  if (!Number.isFinite(deadline)) return undefined
  if (deadline <= now) return { path: 'deadline', message: 'deadline is in the past' }
  if (deadline > now + DEADLINE_MARGIN_MS) return undefined
  const minutes = DEADLINE_MARGIN_MS / 60_000
  return { path: 'deadline', message: `deadline is less than ${minutes} minutes away: the peers stop working on a job ${minutes} minutes before its deadline, so that its results are submitted and verified in time` }
}

/**
 * What the deployed escrow's `createJob` accepts (`JobLimits`: k in `minVerifiers..maxVerifiers`, a deadline at most
 * `maxDeadlineSeconds` after the job's block), with the chain's clock its deadline bound is read against.
 */
export interface EscrowBounds extends JobLimits {
  /** Unix seconds of the chain's latest block: the block that creates the job is no earlier. */
  chainTime: number
}

/** `30 days`, `36 hours`, `90 minutes`, `45 s`: a span of seconds in its largest whole unit. */
function span (seconds: number): string {
  for (const [unit, s] of [['days', 86_400], ['hours', 3_600], ['minutes', 60]] as const) {
    if (seconds >= s && seconds % s === 0) return `${seconds / s} ${unit}`
  }
  return `${seconds} s`
}

/**
 * What the deployed escrow would refuse of `verifiers` and `deadline` (unix ms): k outside its bounds
 * (`InvalidVerifierCount`), an even k (`EvenVerifierCount`: half the verifiers could tie a vote, and a tie restarts
 * the round with nobody slashed), a deadline further than its `maxDeadline` from the chain's clock (`InvalidDeadline`).
 * Checked before anything is uploaded or paid.
 */
export function escrowIssues (verifiers: unknown, deadline: number, bounds: EscrowBounds): JobIssue[] {
  const issues: JobIssue[] = []
  const { minVerifiers: min, maxVerifiers: max } = bounds
  // k that is not a whole number is the job spec validator's to name
  if (typeof verifiers === 'number' && Number.isInteger(verifiers)) {
    if (verifiers < min || verifiers > max) {
      issues.push({ path: 'verifiers', message: `k (verifiers) must be ${verifiers < min ? `at least ${min}` : `at most ${max}`}: this network's escrow accepts ${min} to ${max} verifiers, not ${verifiers}` })
    } else if (verifiers % 2 === 0) {
      issues.push({ path: 'verifiers', message: `k (verifiers) must be odd: half of ${verifiers} verifiers could tie a vote, and a tie restarts the round with nobody slashed` })
    }
  }
  const latest = bounds.chainTime + bounds.maxDeadlineSeconds
  if (Number.isFinite(deadline) && Math.ceil(deadline / 1000) > latest) {
    issues.push({
      path: 'deadline',
      message: `deadline is more than ${span(bounds.maxDeadlineSeconds)} away: this network's escrow accepts a deadline at most ${span(bounds.maxDeadlineSeconds)} ` +
        `after the job is created (by the chain's clock, no later than ${new Date(latest * 1000).toISOString()})`
    })
  }
  return issues
}

/**
 * An input of an untyped caller (JavaScript) that is none of the forms content takes: `data: 5` was told "blockCount
 * is required when data is a URI", `code: { foo: 1 }` "codeUri: Invalid input".
 */
function contentShapeIssue (name: 'code' | 'data' | 'model', value: unknown): JobIssue | undefined {
  if (value == null || value instanceof Uint8Array) return undefined
  const uri = typeof value === 'string' ? value : typeof value === 'object' ? (value as { uri?: unknown }).uri : undefined
  // an ipfs:// or https:// URI the peers cannot parse (`ipfs://notacid`): refused before the upload, not after it
  if (typeof uri === 'string') return isContentUri(uri) ? uriIssue(name, uri) : undefined
  const got = Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object without a uri string' : `a ${typeof value}`
  return { path: name, message: `${name} must be bytes (a Uint8Array), a file path, a URI, or { uri }: got ${got}` }
}

function uriIssue (name: 'code' | 'data' | 'model', uri: string): JobIssue | undefined {
  try {
    parseContentUri(uri)
    return undefined
  } catch (err) {
    return { path: name, message: `${name} ${uri} is not a content URI the peers read: ${(err as Error).message}` }
  }
}

/**
 * Fixes defaults and checks what the JobSpec validator cannot see (data size vs. blocks, deadline vs. clock, code and
 * model sizes and the estimate vs. what the peers run, values vs. the escrow's field widths, and with `bounds` what the
 * deployed escrow accepts).
 */
export function draftSpec (input: SubmitInput, creator: string, sizes: ContentSizes, now: number, bounds?: EscrowBounds): SpecDraft {
  const issues: JobIssue[] = unknownFieldIssues(input)
  const dataSize = sizes.data
  // an untyped caller (JavaScript) may leave out what the types require
  if (input.code == null) issues.push({ path: 'code', message: 'code is required: WebAssembly bytes, a file, or an ipfs:// or https:// URI' })
  if (input.data == null) issues.push({ path: 'data', message: 'data is required: bytes, a file, or an ipfs:// or https:// URI' })
  const shapes = (['code', 'data', 'model'] as const).map(name => contentShapeIssue(name, input[name])).filter(i => i !== undefined)
  issues.push(...shapes)
  const after = input.deadlineAfterMs
  if (after !== undefined && input.deadline !== undefined) issues.push({ path: 'deadline', message: 'name the deadline once: deadline or deadlineAfterMs' })
  if (after !== undefined && !(typeof after === 'number' && Number.isFinite(after) && after > 0)) {
    issues.push({ path: 'deadlineAfterMs', message: 'must be a positive number of ms' })
  }
  const deadline = input.deadline instanceof Date
    ? input.deadline.getTime()
    : (input.deadline ?? now + (typeof after === 'number' && Number.isFinite(after) ? after : DEFAULT_DEADLINE_MS))
  const late = deadlineIssue(deadline, now)
  if (late !== undefined) issues.push(late)
  if (bounds !== undefined) issues.push(...escrowIssues(input.verifiers ?? DEFAULT_VERIFIERS, deadline, bounds))
  let blockCount = input.blockCount
  const bs = input.blockSize
  const validBs = Number.isSafeInteger(bs) && bs > 0
  if (dataSize !== undefined && validBs) {
    const fromData = Math.ceil(dataSize / bs)
    if (dataSize === 0) issues.push({ path: 'data', message: 'data is empty' })
    if (blockCount === undefined) blockCount = fromData
    else if (blockCount !== fromData) {
      issues.push({ path: 'blockCount', message: `data of ${dataSize} bytes has ${fromData} blocks of ${bs} bytes, not ${blockCount}` })
      // the slicing is weighed against the data's blocks, not the count given wrong (it said "the data has 5 blocks")
      blockCount = fromData
    }
  } else if (dataSize === undefined && blockCount === undefined && input.data != null && !shapes.some(i => i.path === 'data')) {
    issues.push({ path: 'blockCount', message: 'blockCount is required when data is a URI (jobmesh-dapp submit: --block-count)' })
  }
  const slicing = blockCount === undefined || !validBs ? undefined : slicingMismatch(input.slicing ?? {}, blockCount, bs)
  if (slicing !== undefined) issues.push({ path: 'slicing', message: slicing })
  const verification = verificationIssue(input.verification, input.slicing)
  if (verification !== undefined) issues.push({ path: 'verification', message: verification })
  const fee = bounds === undefined || verification !== undefined ? undefined : feeIssue(input, bounds.minFee)
  if (fee !== undefined) issues.push(fee)
  if (input.model !== undefined && input.requirements?.modelId !== undefined) {
    issues.push({ path: 'model', message: 'name the model once: model or requirements.modelId' })
  }
  const modelUri = typeof input.model === 'object' && !(input.model instanceof Uint8Array) ? input.model.uri : input.model
  if (typeof modelUri === 'string' && /^[a-z]+:\/\//.test(modelUri) && !modelUri.startsWith('ipfs://') && !modelUri.startsWith('file://')) {
    issues.push({ path: 'model', message: 'a model is bytes, a file or an ipfs:// URI (peers fetch and pin it by CID)' })
  }
  const gpuModel = typeof input.requirements?.gpuModel === 'string' ? input.requirements.gpuModel.trim().toLowerCase() : undefined
  if (gpuModel === '') {
    issues.push({ path: 'requirements.gpuModel', message: 'is empty: name a GPU model, or leave it out for any (jobmesh-dapp submit: no --gpu-model)' })
  }
  // "Any" is the GPU model a node started without --gpu-model registers (peer.ts), not every model: such a job
  // excluded every node that names its GPU, while describe said "GPU Any" and the docs call no requirement "the Any group"
  if (gpuModel === 'any') {
    issues.push({ path: 'requirements.gpuModel', message: '"Any" is the model of nodes that name no GPU, not every model: leave it out for any GPU model (jobmesh-dapp submit: no --gpu-model)' })
  }
  if (input.requirements?.minVramGb !== undefined && !Number.isInteger(input.requirements.minVramGb)) {
    issues.push({ path: 'requirements.minVramGb', message: 'must be a whole number of GB (the escrow stores a uint32)' })
  }
  issues.push(...limitIssues(input, sizes))
  return { input, creator, seed: input.seed ?? randomUint256(), deadline, blockCount, issues }
}

/**
 * Builds and validates the JobSpec with `parseJobSpec`.
 *
 * @throws InvalidJobError listing every bad field (the validator's and the draft's issues)
 */
export function buildSpec (draft: SpecDraft, codeUri: string, dataUri: string, modelUri?: string): JobSpec {
  const { input } = draft
  const raw: Record<string, unknown> = {
    creator: draft.creator,
    codeUri,
    dataUri,
    blockSize: input.blockSize,
    blockCount: draft.blockCount ?? 0,
    slicing: input.slicing,
    seed: draft.seed,
    // minVramGb 0 (any) when the requirements name only a GPU model, as the CLI's --gpu-model alone does
    requirements: { ...input.requirements, minVramGb: input.requirements?.minVramGb ?? 0, ...(modelUri == null ? {} : { modelId: modelUri }) },
    price: input.price,
    estimate: {
      secondsPerMicroJob: input.estimate?.secondsPerMicroJob ?? DEFAULT_SECONDS_PER_MICRO_JOB,
      ...(input.estimate?.maxOutputBytes === undefined ? {} : { maxOutputBytes: input.estimate.maxOutputBytes })
    },
    verifiers: input.verifiers ?? DEFAULT_VERIFIERS,
    deadline: draft.deadline
  }
  let issues = [...draft.issues]
  let spec: JobSpec | undefined
  let cause: unknown
  try {
    spec = parseJobSpec(raw)
  } catch (err) {
    if ((err as Error).name !== 'InvalidJobSpecError') throw err
    cause = err
    const specIssues = (err as { issues: JobIssue[] }).issues
    // a missing blockCount is reported once, by the draft (and not at all beside empty data, which is why it is 0); so
    // is a slicing that does not cover the blocks (in plainer words) and k beyond the escrow's bound (the validator
    // knows only the uint8 bound, the draft this network's)
    const drafted = (path: string): boolean => draft.issues.some(i => i.path === path)
    // an unknown field of requirements or slicing is named once, by the draft, with the field it likely misspells
    const unknownIn = new Set(unknownFieldIssues(input).map(i => i.path.split('.')[0]))
    issues = [...issues, ...specIssues.filter(i => !((draft.blockCount === undefined || drafted('data')) && i.path === 'blockCount') &&
      !(i.path === 'slicing' && (drafted('slicing') || unknownIn.has('slicing'))) && !(i.path === 'verifiers' && drafted('verifiers')) &&
      !(i.path === 'requirements' && unknownIn.has('requirements')) && !(i.path === 'requirements.gpuModel' && drafted('requirements.gpuModel')))]
  }
  if (issues.length > 0 || spec === undefined) throw new InvalidJobError(issues, { cause })
  return spec
}

/** A fee below what the escrow takes for this job ({@link minimumJobFee}), known before the upload; else undefined. */
function feeIssue (input: SubmitInput, minFee: bigint): JobIssue | undefined {
  const price = typeof input.price === 'bigint' ? input.price : typeof input.price === 'string' && /^\d+$/.test(input.price) ? BigInt(input.price) : undefined
  const per = input.slicing?.microJobsPerMacro
  const k = input.verifiers ?? DEFAULT_VERIFIERS
  // a price of 0 or less is the spec's own issue ("price must be positive"), not a fee below the minimum as well
  if (price === undefined || price <= 0n || !Number.isSafeInteger(per) || (per as number) <= 0 || !Number.isSafeInteger(k) || k <= 0) return undefined
  const minimum = minimumJobFee(minFee, { microJobsPerMacro: per as number, k, samples: samplesFor(input.verification, per as number) })
  if (price >= minimum) return undefined
  return { path: 'price', message: underfundedText(price, minimum, minFee) }
}
