import { concat } from 'uint8arrays/concat'
import { ContentTooLargeError } from './errors.js'

/** Concatenates chunks, failing with `ContentTooLargeError` as soon as more than `maxBytes` arrived. */
export async function collect (chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, maxBytes: number, what: string): Promise<Uint8Array> {
  const parts: Uint8Array[] = []
  let total = 0
  for await (const chunk of chunks) {
    total += chunk.byteLength
    if (total > maxBytes) throw new ContentTooLargeError(`${what} is larger than ${maxBytes} bytes`)
    parts.push(chunk)
  }
  return parts.length === 1 ? parts[0] : concat(parts, total)
}
