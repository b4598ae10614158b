import { stat } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { AbortError, DownloadError, TimeoutError, UploadError } from './errors.js'
import type { ContentStore } from '@jobmesh/peer/storage'
import type { AbortOptions } from '@libp2p/interface'

/**
 * Code or data of a job: bytes (uploaded), a local file path or `file://` URL (uploaded), or an `ipfs://` /
 * `https://` URI (used as is), or `{ uri }` for any URI the spec accepts, used as is.
 */
export type ContentInput = Uint8Array | string | { uri: string }

/** Where content ended up. */
export interface ContentRef {
  /** The URI that goes into the JobSpec (`ipfs://<cid>` for uploads). */
  uri: string
  /** Size in bytes, when known (uploads). */
  size?: number
  /** Whether the SDK added the bytes to its helia (and pinned them). */
  uploaded: boolean
}

const PASS_THROUGH = ['ipfs://', 'https://']

/** Whether a string input names content by URI (`ipfs://`, `https://`: passed to the peers as it is), not a local file. */
export function isContentUri (input: string): boolean {
  return PASS_THROUGH.some(p => input.startsWith(p))
}

/** The SDK's error for a failed upload: AbortError when `signal` aborted it, else UploadError. */
function uploadError (err: unknown, what: string, options: AbortOptions): Error {
  if (options.signal?.aborted === true) return new AbortError(`upload of ${what} aborted`, { cause: err })
  return new UploadError(`cannot upload ${what}: ${(err as Error).message}`, { cause: err })
}

/**
 * Resolves one code/data input: uploads bytes and files through the peer's content store (UnixFS, pinned), so
 * peers fetch them by CID over bitswap; URIs are kept.
 *
 * @throws UploadError (unreadable file, blockstore failure), AbortError
 */
export async function resolveContent (store: Pick<ContentStore, 'addBytes' | 'addFile'>, input: ContentInput, what: string,
  options: AbortOptions = {}): Promise<ContentRef> {
  options.signal?.throwIfAborted()
  if (typeof input === 'object' && !(input instanceof Uint8Array)) {
    return { uri: input.uri, uploaded: false }
  }
  if (typeof input === 'string' && isContentUri(input)) {
    return { uri: input, uploaded: false }
  }
  try {
    if (input instanceof Uint8Array) {
      return { uri: `ipfs://${await store.addBytes(input, options)}`, size: input.byteLength, uploaded: true }
    }
    const path = input.startsWith('file://') ? fileURLToPath(input) : input
    const size = (await stat(path)).size
    return { uri: `ipfs://${await store.addFile(path, options)}`, size, uploaded: true }
  } catch (err) {
    throw uploadError(err, what, options)
  }
}

/**
 * Stores bytes as one raw block and pins it; returns its CID. The spec is stored this way, so its CID is the CID
 * of its canonical bytes (docs/protocol.md).
 *
 * @throws UploadError, AbortError
 */
export async function putRaw (store: Pick<ContentStore, 'addRaw'>, bytes: Uint8Array, what: string, options: AbortOptions = {}): Promise<string> {
  try {
    return await store.addRaw(bytes, options)
  } catch (err) {
    throw uploadError(err, what, options)
  }
}

/**
 * Fetches content by CID through the peer's content store (locally or from peers over bitswap), within `timeoutMs`
 * (default the store's).
 *
 * @throws TimeoutError (no peer served it within `timeoutMs`), DownloadError, AbortError (when `signal` aborted it)
 */
export async function fetchContent (store: Pick<ContentStore, 'fetch'>, cid: string, options: AbortOptions & { timeoutMs?: number, maxBytes?: number } = {}): Promise<Uint8Array> {
  try {
    return await store.fetch(`ipfs://${cid}`, options)
  } catch (err) {
    if (options.signal?.aborted === true) throw new AbortError(`download of ${cid} aborted`, { cause: err })
    // the store's timeout (`timeoutMs`): nobody served the content in time
    if ((err as Error).name === 'ContentTimeoutError') throw new TimeoutError(`download of ${cid} timed out: ${(err as Error).message}`, { cause: err })
    throw new DownloadError(`cannot fetch ${cid}: ${(err as Error).message}`, { cause: err })
  }
}
