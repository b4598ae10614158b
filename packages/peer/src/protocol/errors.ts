/** One field of a JobSpec that failed validation. `path` is dotted, e.g. `slicing.blocksPerMicro`. */
export interface SpecIssue {
  path: string
  message: string
}

/** A JobSpec (parsed from external input) is invalid; `issues` lists every bad field. */
export class InvalidJobSpecError extends Error {
  static override readonly name = 'InvalidJobSpecError'
  override readonly name = 'InvalidJobSpecError'
  readonly issues: SpecIssue[]

  constructor (issues: SpecIssue[]) {
    super(`invalid job spec: ${issues.map(i => `${i.path === '' ? '(root)' : i.path}: ${i.message}`).join('; ')}`)
    this.issues = issues
  }
}

/** Bytes given to `decodeJobSpec` are not UTF-8 JSON. */
export class MalformedJobSpecEncodingError extends Error {
  static override readonly name = 'MalformedJobSpecEncodingError'
  override readonly name = 'MalformedJobSpecEncodingError'
}

/** A value that must be a 32-byte hex string, an address or a uint256 is not one. */
export class InvalidArgumentError extends Error {
  static override readonly name = 'InvalidArgumentError'
  override readonly name = 'InvalidArgumentError'
}

/** A leaf asked for is not in the Merkle tree, or the tree would be empty. */
export class LeafNotFoundError extends Error {
  static override readonly name = 'LeafNotFoundError'
  override readonly name = 'LeafNotFoundError'
}

/** A Merkle tree was asked to be built over no leaves. */
export class EmptyTreeError extends Error {
  static override readonly name = 'EmptyTreeError'
  override readonly name = 'EmptyTreeError'
}

/** A weighted draw has nothing (or not enough) with positive weight to choose from. */
export class NotEnoughCandidatesError extends Error {
  static override readonly name = 'NotEnoughCandidatesError'
  override readonly name = 'NotEnoughCandidatesError'
}

/** A task with this id is already queued. */
export class DuplicateTaskError extends Error {
  static override readonly name = 'DuplicateTaskError'
  override readonly name = 'DuplicateTaskError'
}

/** Encoded SignedRecord bytes are truncated, too long, of an unknown version, or name an invalid signer. */
export class MalformedRecordError extends Error {
  static override readonly name = 'MalformedRecordError'
  override readonly name = 'MalformedRecordError'
}

/** A record domain is empty or too long. */
export class InvalidDomainError extends Error {
  static override readonly name = 'InvalidDomainError'
  override readonly name = 'InvalidDomainError'
}
