import { collect } from './collect.js'
import { ContentFetchError, ContentNotFoundError, ContentTooLargeError } from './errors.js'
import type { ByteRange } from './uri.js'
import type { UnixFS } from '@helia/unixfs'
import type { CID } from 'multiformats/cid'

/** @helia/unixfs's errors for a path or content that is not there. */
export const NOT_FOUND = new Set(['DoesNotExistError', 'NotAFileError', 'NotADirectoryError', 'NoContentError', 'NotFoundError'])

/**
 * @helia/unixfs's error for a range its file cannot serve. `checkRange` lets through only whole offsets >= 0 and the
 * exporter clamps the end to the file's size, so the one it can still raise is an offset past the end.
 */
const PAST_THE_END = 'InvalidParametersError'

/**
 * Reads a byte range of a UnixFS file (or raw block) with `cat`: only the blocks covering the range are fetched. A
 * range past the end gives no bytes, as a file's and an HTTP server's do (416): a MicroJob whose blocks lie past the
 * end of its data gets the same empty input on every peer, not a fetch error that reads as the network's fault.
 */
export async function readIpfsRange (fs: UnixFS, cid: CID, path: string, range: ByteRange, maxBytes: number,
  signal: AbortSignal): Promise<Uint8Array> {
  if (range.length === 0) return new Uint8Array(0)
  if (range.length !== undefined && range.length > maxBytes) {
    throw new ContentTooLargeError(`ipfs://${cid} range of ${range.length} bytes is larger than ${maxBytes} bytes`)
  }
  const what = `ipfs://${cid}${path === '' ? '' : `/${path}`}`
  try {
    const chunks = fs.cat(cid, {
      offset: range.offset,
      ...(range.length === undefined ? {} : { length: range.length }),
      ...(path === '' ? {} : { path }),
      signal
    })
    return await collect(chunks, maxBytes, what)
  } catch (err) {
    if (signal.aborted || (err as Error).name === 'ContentTooLargeError') throw err
    const name = (err as Error).name
    if (name === PAST_THE_END && range.offset > 0) return new Uint8Array(0)
    if (NOT_FOUND.has(name)) throw new ContentNotFoundError(`${what}: ${(err as Error).message}`, { cause: err })
    throw new ContentFetchError(`cannot read ${what}: ${(err as Error).message}`, { cause: err })
  }
}
