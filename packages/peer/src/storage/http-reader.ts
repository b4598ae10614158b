import { isIP } from 'node:net'
import { collect } from './collect.js'
import { ContentFetchError, ContentNotFoundError, ContentTooLargeError, ForbiddenUriError } from './errors.js'
import { isPublicAddress, publicLookup } from './public-address.js'
import type { ByteRange } from './uri.js'
import type { Agent } from 'undici'

/** Connections of `publicOnly` reads: every name resolved through `publicLookup`. */
let publicAgent: Agent | undefined

/** A request to a public address only (`publicOnly`): an address literal is checked here, a name when it resolves. */
async function fetchPublic (url: URL, headers: Record<string, string>, signal: AbortSignal): Promise<Response> {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname
  if (isIP(host) !== 0 && !isPublicAddress(host)) throw new ForbiddenUriError(`${url.href}: ${host} is not a public address`)
  // undici loads here, at a job's first https input: ~0.3 s of CPU that a peer's start (every peer, every DApp
  // client) no longer spends for content most jobs keep in IPFS
  const undici = await import('undici')
  publicAgent ??= new undici.Agent({ connect: { lookup: publicLookup } })
  try {
    // no redirect: its target would be another request, to anywhere
    return await undici.fetch(url, { headers, signal, redirect: 'error', dispatcher: publicAgent }) as unknown as Response
  } catch (err) {
    const code = ((err as Error).cause as NodeJS.ErrnoException | undefined)?.code
    if (code === 'EJOBMESH_NOT_PUBLIC') throw new ForbiddenUriError(`${url.href}: ${((err as Error).cause as Error).message}`, { cause: err })
    if (!signal.aborted && /redirect/i.test(String(((err as Error).cause as Error | undefined)?.message))) {
      throw new ForbiddenUriError(`${url.href}: redirects are not followed for a job's content`, { cause: err })
    }
    throw err
  }
}

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
 * sliced; 416 (range past the end) gives no bytes. With `publicOnly` (a job's content) only public addresses are
 * connected to and no redirect is followed (`ForbiddenUriError`).
 */
export async function readHttpRange (url: URL, range: ByteRange, maxBytes: number, signal: AbortSignal,
  options: { publicOnly?: boolean } = {}): Promise<Uint8Array> {
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
    res = options.publicOnly === true ? await fetchPublic(url, headers, signal) : await fetch(url, { headers, signal, redirect: 'follow' })
  } catch (err) {
    if (signal.aborted || (err as Error).name === ForbiddenUriError.name) throw err
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
