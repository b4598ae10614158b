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
