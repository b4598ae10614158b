/** An operation stopped by its AbortSignal: the one class of every jobmesh package (`@jobmesh/contracts`). */
export { AbortError } from '@jobmesh/contracts'

/**
 * Errors of the content store and the WASM MicroJob executor adapter. One class per condition; branch on
 * `err.name`.
 */

/** The URI is malformed or uses a scheme the store does not read (supported: ipfs://, https://, http://, file://). */
export class UnsupportedUriError extends Error {
  static override readonly name = 'UnsupportedUriError'
  override name = 'UnsupportedUriError'
}

/** The content does not exist (missing file, HTTP 404, unknown CID path). */
export class ContentNotFoundError extends Error {
  static override readonly name = 'ContentNotFoundError'
  override name = 'ContentNotFoundError'
}

/** The content (or the requested range) is larger than `maxBytes`. */
export class ContentTooLargeError extends Error {
  static override readonly name = 'ContentTooLargeError'
  override name = 'ContentTooLargeError'
}

/** The content could not be fetched within the timeout (for IPFS: no peer provided the blocks in time). */
export class ContentTimeoutError extends Error {
  static override readonly name = 'ContentTimeoutError'
  override name = 'ContentTimeoutError'
}

/** The server or the file system failed while reading (HTTP 5xx, bad range answer, I/O error). */
export class ContentFetchError extends Error {
  static override readonly name = 'ContentFetchError'
  override name = 'ContentFetchError'
}

/** The requested range is invalid (negative offset or length, non-integer). */
export class InvalidRangeError extends Error {
  static override readonly name = 'InvalidRangeError'
  override name = 'InvalidRangeError'
}


/**
 * A URI a job named (`fetch` with `fromNetwork`) that this peer does not read: not `ipfs://` or `https://`, or a host
 * that is not a public address (this machine, a private network, link-local), or a redirect.
 */
export class ForbiddenUriError extends Error {
  static override readonly name = 'ForbiddenUriError'
  override name = 'ForbiddenUriError'
}
