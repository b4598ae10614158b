import { CID } from 'multiformats/cid'
import { InvalidRangeError, UnsupportedUriError } from './errors.js'

/** A parsed content URI. */
export type ContentUri =
  | { scheme: 'ipfs', cid: CID, path: string, uri: string }
  | { scheme: 'http', url: URL, uri: string }
  | { scheme: 'file', url: URL, uri: string }

/**
 * Parses `ipfs://<cid>[/path]`, `https://...`, `http://...` or `file://...`.
 *
 * @throws UnsupportedUriError
 */
export function parseContentUri (uri: string): ContentUri {
  if (typeof uri !== 'string' || uri === '') throw new UnsupportedUriError('empty content URI')
  if (uri.startsWith('ipfs://')) {
    const rest = uri.slice('ipfs://'.length)
    const slash = rest.indexOf('/')
    const cidText = slash < 0 ? rest : rest.slice(0, slash)
    const path = slash < 0 ? '' : rest.slice(slash + 1)
    try {
      return { scheme: 'ipfs', cid: CID.parse(cidText), path, uri }
    } catch (err) {
      throw new UnsupportedUriError(`not a CID in ${uri}`, { cause: err })
    }
  }
  let url: URL
  try {
    url = new URL(uri)
  } catch (err) {
    throw new UnsupportedUriError(`malformed URI ${uri}`, { cause: err })
  }
  if (url.protocol === 'https:' || url.protocol === 'http:') return { scheme: 'http', url, uri }
  if (url.protocol === 'file:') return { scheme: 'file', url, uri }
  throw new UnsupportedUriError(`unsupported URI scheme ${url.protocol} (ipfs://, https://, http://, file://)`)
}

/** A byte range; `length` undefined = to the end. */
export interface ByteRange {
  offset: number
  length?: number
}

/** @throws InvalidRangeError */
export function checkRange (offset: number | undefined, length: number | undefined): ByteRange {
  const o = offset ?? 0
  if (!Number.isSafeInteger(o) || o < 0) throw new InvalidRangeError(`offset must be a non-negative integer, got ${offset}`)
  if (length !== undefined && (!Number.isSafeInteger(length) || length < 0)) {
    throw new InvalidRangeError(`length must be a non-negative integer, got ${length}`)
  }
  return length === undefined ? { offset: o } : { offset: o, length }
}
