/** Errors of settlement. One class per condition; branch on `err.name`. */

/** Not every MicroJob of the job has a counting result yet. */
export class JobIncompleteError extends Error {
  static override readonly name = 'JobIncompleteError'
  override name = 'JobIncompleteError'
}

/** No result signer of the job has a payable address (no peer profile, no registration). */
export class NoPayeesError extends Error {
  static override readonly name = 'NoPayeesError'
  override name = 'NoPayeesError'
}

/** The job's spec could not be found or does not match the job on chain. */
export class SpecUnavailableError extends Error {
  static override readonly name = 'SpecUnavailableError'
  override name = 'SpecUnavailableError'
}

/** The manifest is malformed or does not match the roots on chain. */
export class InvalidManifestError extends Error {
  static override readonly name = 'InvalidManifestError'
  override name = 'InvalidManifestError'
}

/** The contract's validation index differs from the protocol core's (a protocol mismatch: never verify blindly). */
export class ValidationIndexMismatchError extends Error {
  static override readonly name = 'ValidationIndexMismatchError'
  override name = 'ValidationIndexMismatchError'
}

/** The job is not in the status the step needs (e.g. claiming before Released). */
export class WrongJobStatusError extends Error {
  static override readonly name = 'WrongJobStatusError'
  override name = 'WrongJobStatusError'
}

/**
 * A MicroJob output listed in the manifest could not be fetched and could not be regenerated (no executor, or the
 * executor failed): the finalizer does not submit a root it cannot back.
 */
export class OutputUnavailableError extends Error {
  static override readonly name = 'OutputUnavailableError'
  override name = 'OutputUnavailableError'
  readonly macroIndex: number
  readonly index: number

  constructor (macroIndex: number, index: number, message: string, options?: ErrorOptions) {
    super(message, options)
    this.macroIndex = macroIndex
    this.index = index
  }
}

/**
 * Re-running a MicroJob whose output was unavailable gave a different sha256 than its result record: the recorded
 * result is not trustworthy, so the finalizer does not submit it.
 */
export class OutputMismatchError extends Error {
  static override readonly name = 'OutputMismatchError'
  override name = 'OutputMismatchError'
  readonly macroIndex: number
  readonly index: number
  readonly expected: string
  readonly actual: string

  constructor (macroIndex: number, index: number, expected: string, actual: string) {
    super(`MicroJob ${macroIndex}.${index}: re-running it gives output ${actual}, its result record claims ${expected}`)
    this.macroIndex = macroIndex
    this.index = index
    this.expected = expected
    this.actual = actual
  }
}

/** This node's committed verifier seed is not one its wallet derives (committed elsewhere): it cannot reveal it. */
export class UnknownSeedError extends Error {
  static override readonly name = 'UnknownSeedError'
  override name = 'UnknownSeedError'
}

/** This node's join of a job (`joinJob`) was not mined within the processor's wait: it does no work on the job yet. */
export class JoinNotMinedError extends Error {
  static override readonly name = 'JoinNotMinedError'
  override name = 'JoinNotMinedError'
}
