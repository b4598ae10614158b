/**
 * Errors thrown by `@jobmesh/dapp-sdk`. One class per condition; branch on `err.name` (it survives bundling and
 * realm boundaries, unlike `instanceof`), never on the message text.
 */

/** An operation stopped by its AbortSignal: the one class of every jobmesh package (`@jobmesh/contracts`). */
export { AbortError } from '@jobmesh/contracts'

/** One bad field of a job submission, `path` dotted (e.g. `slicing.blocksPerMicro`). */
export interface JobIssue {
  path: string
  message: string
}

/** The job described to `submit` is invalid; `issues` lists every bad field (spec validation and SDK checks). */
export class InvalidJobError extends Error {
  static override readonly name = 'InvalidJobError'
  override readonly name = 'InvalidJobError'
  readonly issues: JobIssue[]

  constructor (issues: JobIssue[], options?: ErrorOptions) {
    super(`invalid job: ${issues.map(i => `${i.path === '' ? '(root)' : i.path}: ${i.message}`).join('; ')}`, options)
    this.issues = issues
  }
}

/**
 * The job's code is not a WebAssembly module the executor can run (does not compile, imports something other than
 * `env.abort`, or lacks the `memory` / `alloc` / `process` exports). `reason` is the executor's error name
 * (`InvalidWasmError`, `ForbiddenImportError`, `MissingExportError`). Nothing was uploaded or paid.
 */
export class InvalidCodeError extends Error {
  static override readonly name = 'InvalidCodeError'
  override readonly name = 'InvalidCodeError'
  readonly reason: string

  constructor (reason: string, message: string, options?: ErrorOptions) {
    super(message, options)
    this.reason = reason
  }
}

/**
 * The peers gave the job up: its MicroJobs failed on several peers (poison isolation: code that is not
 * WebAssembly, traps, or runs past its time limit). `attempts`, `peers`, `reasons` (error names) and `details`
 * (`name: message`, each failing peer's own word) are what the job's CRDT shows.
 */
export class JobFailedError extends Error {
  static override readonly name = 'JobFailedError'
  override readonly name = 'JobFailedError'
  readonly attempts: number
  readonly peers: number
  readonly reasons: string[]
  readonly details: string[]

  constructor (message: string, failed: { attempts: number, peers: number, reasons: string[], details?: string[] }, options?: ErrorOptions) {
    super(message, options)
    this.attempts = failed.attempts
    this.peers = failed.peers
    this.reasons = failed.reasons
    this.details = failed.details ?? failed.reasons
  }
}

/** A client option (`createJobClient`) is missing or malformed. */
export class InvalidConfigError extends Error {
  static override readonly name = 'InvalidConfigError'
  override readonly name = 'InvalidConfigError'
}

/**
 * The escrow computed another job id or task value than the protocol core of this SDK: the deployment runs other
 * contracts than this SDK was built for. The job was funded; refund it after its deadline.
 */
export class EscrowMismatchError extends Error {
  static override readonly name = 'EscrowMismatchError'
  override readonly name = 'EscrowMismatchError'
}

/**
 * `submit` sent (or may have sent) the job's funding transaction but could not learn its outcome (its receipt never
 * came within the transaction timeout, or the send failed after the transaction may have reached the pool), and the
 * chain shows no `JobCreated` event of the job, or could not be asked. The job may still be funded: check
 * `jobmesh-dapp status <jobId>` (`client.status(jobId)`) before submitting again, since a new submit creates and pays
 * for a second job. `jobId` names the job; `cause` is the chain error of the funding.
 */
export class FundingUnknownError extends Error {
  static override readonly name = 'FundingUnknownError'
  override readonly name = 'FundingUnknownError'
  readonly jobId: string

  constructor (message: string, jobId: string, options?: ErrorOptions) {
    super(message, options)
    this.jobId = jobId
  }
}

// The chain errors are those of the chain client in `@jobmesh/contracts`, shared with the peers: a revert with its
// decoded custom error (`ChainRevertError.errorName`, `.errorArgs`), an unreachable endpoint, a timeout, any other
// failed request, a deployment of another chain, an escrow address where no JobEscrow answers, a wallet that cannot
// pay (`submit`: the fee and the gas of the funding transaction).
export {
  ChainMismatchError, ChainRequestError, ChainRevertError, ChainTimeoutError, EscrowNotFoundError, InsufficientFundsError, RpcUnreachableError
} from '@jobmesh/contracts'

/** Code or data could not be read or added to the client's IPFS node. */
export class UploadError extends Error {
  static override readonly name = 'UploadError'
  override readonly name = 'UploadError'
}

/** The job could not be announced to the network. */
export class AnnounceError extends Error {
  static override readonly name = 'AnnounceError'
  override readonly name = 'AnnounceError'
}

/**
 * A job was funded and announced but no peer confirmed it holds the job's code and data: the submitting client is
 * the only one that can serve them, so it must stay online (a detached submit refuses to exit silently).
 */
export class InputsNotHeldError extends Error {
  static override readonly name = 'InputsNotHeldError'
  override readonly name = 'InputsNotHeldError'
  readonly jobId: string

  constructor (message: string, jobId: string) {
    super(message)
    this.jobId = jobId
  }
}

/**
 * `submit` with `requirePeer` found no connected peer that could hold the job's inputs (none speaks the replication
 * protocol): funded, the job would wait for its deadline with nobody to run it. Nothing was uploaded or paid.
 * `connected` is how many peers were connected (DApp clients, peers of another network).
 */
export class NoPeerConnectedError extends Error {
  static override readonly name = 'NoPeerConnectedError'
  override readonly name = 'NoPeerConnectedError'
  readonly connected: number

  constructor (message: string, connected: number, options?: ErrorOptions) {
    super(message, options)
    this.connected = connected
  }
}

/**
 * `submit` with `requireActiveNodes` (the CLI's without `--force`) read on chain that the network cannot
 * finish the job: fewer active nodes (`active`) than its k verifiers and its submitter (`needed`). Funded, it would wait
 * for its deadline. Nothing was uploaded or paid. (What the known peers' profiles say, a bond no known node covers or
 * too few matching peers, is only a warning of the CLI.)
 */
export class JobCannotFinishError extends Error {
  static override readonly name = 'JobCannotFinishError'
  override readonly name = 'JobCannotFinishError'
  readonly active: number
  readonly needed: number

  constructor (message: string, active: number, needed: number, options?: ErrorOptions) {
    super(message, options)
    this.active = active
    this.needed = needed
  }
}

/**
 * An input named by an `ipfs://` URI (code, data or a model this client did not upload) that no peer this client
 * reaches served within the wait (`requirePeer`): funded, the job would wait for its deadline with no peer able to
 * fetch it. Nothing was paid. `uri` is the input's URI.
 */
export class InputUnavailableError extends Error {
  static override readonly name = 'InputUnavailableError'
  override readonly name = 'InputUnavailableError'
  readonly uri: string

  constructor (message: string, uri: string, options?: ErrorOptions) {
    super(message, options)
    this.uri = uri
  }
}

/** A job id that is not one: 0x and 64 hex digits (a job's id is a keccak256). */
export class InvalidJobIdError extends Error {
  static override readonly name = 'InvalidJobIdError'
  override readonly name = 'InvalidJobIdError'
}

/** The escrow knows no job with this id. */
export class JobNotFoundError extends Error {
  static override readonly name = 'JobNotFoundError'
  override readonly name = 'JobNotFoundError'
}

/** `waitForRelease` gave up before the escrow released the job. */
export class ReleaseTimeoutError extends Error {
  static override readonly name = 'ReleaseTimeoutError'
  override readonly name = 'ReleaseTimeoutError'
}

/** Results were rejected by the verifiers and the deadline passed before new results were released. */
export class JobRejectedError extends Error {
  static override readonly name = 'JobRejectedError'
  override readonly name = 'JobRejectedError'
}

/** The job was refunded (deadline passed without a release). */
export class JobRefundedError extends Error {
  static override readonly name = 'JobRefundedError'
  override readonly name = 'JobRefundedError'
}

/** A job's deadline passed without enough MicroJob results (`progress`) or with no release (`refund` is due). */
export class DeadlinePassedError extends Error {
  static override readonly name = 'DeadlinePassedError'
  override readonly name = 'DeadlinePassedError'
}

/** A downloaded output does not hash to the sha256 its result record (or the on-chain resultRoot) claims. */
export class ResultHashMismatchError extends Error {
  static override readonly name = 'ResultHashMismatchError'
  override readonly name = 'ResultHashMismatchError'
  readonly macroIndex: number
  readonly index: number
  readonly expected: string
  readonly actual: string

  constructor (macroIndex: number, index: number, expected: string, actual: string) {
    super(`output of MicroJob ${macroIndex}.${index} hashes to ${actual}, expected ${expected}`)
    this.macroIndex = macroIndex
    this.index = index
    this.expected = expected
    this.actual = actual
  }
}

/** A MicroJob has no usable result yet (no result record, or no CID to fetch its output from). */
export class ResultNotFoundError extends Error {
  static override readonly name = 'ResultNotFoundError'
  override readonly name = 'ResultNotFoundError'
}

/** The results in the job doc do not prove into the resultRoot the submitter put on chain. */
export class ResultRootMismatchError extends Error {
  static override readonly name = 'ResultRootMismatchError'
  override readonly name = 'ResultRootMismatchError'
}

/**
 * No peer served a MicroJob's output within the per-output fetch timeout (`results`): nobody online holds it.
 * `macroIndex`, `index` and `cid` name the output.
 */
export class ResultUnavailableError extends Error {
  static override readonly name = 'ResultUnavailableError'
  override readonly name = 'ResultUnavailableError'
  readonly macroIndex: number
  readonly index: number
  readonly cid: string

  constructor (macroIndex: number, index: number, cid: string, timeoutMs: number, options?: ErrorOptions) {
    super(`output of MicroJob ${macroIndex}.${index} (${cid}) could not be fetched within ${timeoutMs} ms`, options)
    this.macroIndex = macroIndex
    this.index = index
    this.cid = cid
  }
}

/** An output could not be fetched from the network. */
export class DownloadError extends Error {
  static override readonly name = 'DownloadError'
  override readonly name = 'DownloadError'
}

/** A verified output could not be written to the output directory (a folder in the way, a full disk...). */
export class OutputWriteError extends Error {
  static override readonly name = 'OutputWriteError'
  override readonly name = 'OutputWriteError'
}

/** A wait (network or chain) ran out of time. */
export class TimeoutError extends Error {
  static override readonly name = 'TimeoutError'
  override readonly name = 'TimeoutError'
}

/** The client was stopped. */
export class ClientStoppedError extends Error {
  static override readonly name = 'ClientStoppedError'
  override readonly name = 'ClientStoppedError'
}
