/** The doc is not open in this store. */
export class DocNotOpenError extends Error {
  static override readonly name = 'DocNotOpenError'
  override name = 'DocNotOpenError'
}

/** The remote peer does not have the doc open, so it cannot sync it. */
export class DocNotFoundError extends Error {
  static override readonly name = 'DocNotFoundError'
  override name = 'DocNotFoundError'
}

/** A sync peer sent a frame that does not follow the sync protocol (or a diff Yjs cannot apply). */
export class SyncProtocolError extends Error {
  static override readonly name = 'SyncProtocolError'
  override name = 'SyncProtocolError'
}

/**
 * A diff read over a sync stream was larger than this side accepts (a push over `DEFAULT_MAX_PUSH_BYTES`, a pull over
 * `DEFAULT_MAX_SYNC_BYTES`): the read stopped at the frame that passed `limit`, and nothing of the diff was applied.
 */
export class DiffTooLargeError extends Error {
  static override readonly name = 'DiffTooLargeError'
  override name = 'DiffTooLargeError'
  readonly limit: number

  constructor (limit: number) {
    super(`diff larger than ${limit} bytes`)
    this.limit = limit
  }
}

/** A doc name is empty, too long, or contains control characters. */
export class InvalidDocNameError extends Error {
  static override readonly name = 'InvalidDocNameError'
  override name = 'InvalidDocNameError'
}

/** The store was stopped. */
export class DocStoreStoppedError extends Error {
  static override readonly name = 'DocStoreStoppedError'
  override name = 'DocStoreStoppedError'
}

/** The other peer may not read or write this doc (not a registered node, not the job's creator). */
export class PeerNotAdmittedError extends Error {
  static override readonly name = 'PeerNotAdmittedError'
  override name = 'PeerNotAdmittedError'
}
