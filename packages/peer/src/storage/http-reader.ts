import { collect } from './collect.js'
import { ContentFetchError, ContentNotFoundError, ContentTooLargeError } from './errors.js'
import type { ByteRange } from './uri.js'

async function * bodyChunks (body: ReadableStream<Uint8Array>, skip: number, limit: number | undefined): AsyncGenerator<Uint8Array> {
  let seen = 0
  let sent = 0
  const reader = body.getReader()
  try {
    while (limit === undefined || sent < limit) {
      const { done, value } = await reader.read()
      if (done) return
      let chunk = value
      if (seen < skip) {
        const drop = Math.min(skip - seen, chunk.byteLength)
        seen += drop
        chunk = chunk.subarray(drop)
      }
      if (limit !== undefined && sent + chunk.byteLength > limit) chunk = chunk.subarray(0, limit - sent)
      sent += chunk.byteLength
      if (chunk.byteLength > 0) yield chunk
    }
  } finally {
    await reader.cancel().catch(() => {})
  }
}

/**
 * Reads a byte range over HTTP(S) with a `Range` header. A server that ignores the header (200) is read and
 * sliced; 416 (range past the end) gives no bytes.
 */
export async function readHttpRange (url: URL, range: ByteRange, maxBytes: number, signal: AbortSignal): Promise<Uint8Array> {
  if (range.length === 0) return new Uint8Array(0)
  if (range.length !== undefined && range.length > maxBytes) {
    throw new ContentTooLargeError(`${url.href} range of ${range.length} bytes is larger than ${maxBytes} bytes`)
  }
  const headers: Record<string, string> = {}
  if (range.offset > 0 || range.length !== undefined) {
    headers.range = `bytes=${range.offset}-${range.length === undefined ? '' : range.offset + range.length - 1}`
  }
  let res: Response
  try {
    res = await fetch(url, { headers, signal, redirect: 'follow' })
  } catch (err) {
    if (signal.aborted) throw err
    throw new ContentFetchError(`cannot fetch ${url.href}: ${(err as Error).message}`, { cause: err })
  }
  if (res.status === 404 || res.status === 410) {
    await res.body?.cancel()
    throw new ContentNotFoundError(`${url.href}: HTTP ${res.status}`)
  }
  if (res.status === 416) {
    await res.body?.cancel()
    return new Uint8Array(0)
  }
  if (res.status !== 200 && res.status !== 206) {
    await res.body?.cancel()
    throw new ContentFetchError(`${url.href}: HTTP ${res.status} ${res.statusText}`)
  }
  if (res.body == null) return new Uint8Array(0)
  const skip = res.status === 200 ? range.offset : 0
  const declared = Number(res.headers.get('content-length') ?? NaN)
  if (res.status === 206 && range.length === undefined && Number.isFinite(declared) && declared > maxBytes) {
    await res.body.cancel()
    throw new ContentTooLargeError(`${url.href} is ${declared} bytes, larger than ${maxBytes} bytes`)
  }
  try {
    return await collect(bodyChunks(res.body, skip, range.length), maxBytes, url.href)
  } catch (err) {
    if (signal.aborted || (err as Error).name === 'ContentTooLargeError') throw err
    throw new ContentFetchError(`reading ${url.href} failed: ${(err as Error).message}`, { cause: err })
  }
}
