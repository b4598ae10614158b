import { open } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { AbortError, ContentFetchError, ContentNotFoundError, ContentTooLargeError } from './errors.js'
import type { ByteRange } from './uri.js'

/** Reads `[offset, offset + length)` of a local file, clamped to its size. */
export async function readFileRange (url: URL, range: ByteRange, maxBytes: number, signal: AbortSignal): Promise<Uint8Array> {
  if (signal.aborted) throw new AbortError(`reading ${url.href} aborted`)
  let path: string
  try {
    path = fileURLToPath(url)
  } catch (err) {
    throw new ContentNotFoundError(`not a local file path: ${url.href}`, { cause: err })
  }
  let fh
  try {
    fh = await open(path, 'r')
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new ContentNotFoundError(`no such file: ${path}`, { cause: err })
    throw new ContentFetchError(`cannot open ${path}: ${code ?? (err as Error).message}`, { cause: err })
  }
  try {
    const { size } = await fh.stat()
    const available = Math.max(0, size - range.offset)
    const length = Math.min(range.length ?? available, available)
    if (length > maxBytes) throw new ContentTooLargeError(`${url.href} range of ${length} bytes is larger than ${maxBytes} bytes`)
    const out = new Uint8Array(length)
    let done = 0
    while (done < length) {
      if (signal.aborted) throw new AbortError(`reading ${url.href} aborted`)
      const { bytesRead } = await fh.read(out, done, length - done, range.offset + done)
      if (bytesRead === 0) break
      done += bytesRead
    }
    return done === length ? out : out.subarray(0, done)
  } catch (err) {
    if (err instanceof Error && (err.name === 'ContentTooLargeError' || err.name === 'AbortError')) throw err
    throw new ContentFetchError(`cannot read ${path}: ${(err as Error).message}`, { cause: err })
  } finally {
    await fh.close()
  }
}
