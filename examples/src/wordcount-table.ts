/**
 * The word-count table, the output of the wordcount module:
 * `u32 magic "WCT1", u32 entries`, then per entry sorted by the word's bytes: `u8 length, word, u32 count`.
 * All integers little-endian.
 */

/** Magic of a word-count table, "WCT1" little-endian. */
export const WORD_COUNT_MAGIC = 0x31544357

/** Longest word, in bytes; longer runs of word characters are not counted. */
export const MAX_WORD_BYTES = 255

/** One table entry. Words are lower-case ASCII letters and digits. */
export interface WordCount {
  word: string
  count: number
}

/** Orders words by their bytes (unsigned), a prefix before its extensions. */
export function compareWords (a: string, b: string): number {
  // words are ASCII, so UTF-16 code unit order is byte order
  return a < b ? -1 : a > b ? 1 : 0
}

/** Encodes entries (sorted here) as a table. */
export function encodeWordCounts (entries: WordCount[]): Uint8Array {
  const sorted = [...entries].sort((a, b) => compareWords(a.word, b.word))
  const size = 8 + sorted.reduce((n, e) => n + 5 + e.word.length, 0)
  const out = new Uint8Array(size)
  const view = new DataView(out.buffer)
  view.setUint32(0, WORD_COUNT_MAGIC, true)
  view.setUint32(4, sorted.length, true)
  let at = 8
  for (const { word, count } of sorted) {
    if (word.length === 0 || word.length > MAX_WORD_BYTES || !/^[a-z0-9]+$/.test(word)) {
      throw new Error(`Not a word: ${JSON.stringify(word)}`)
    }
    if (!Number.isInteger(count) || count < 0 || count > 0xffffffff) {
      throw new RangeError(`Count of ${word} is not a u32: ${count}`)
    }
    out[at++] = word.length
    for (let i = 0; i < word.length; i++) {
      out[at++] = word.charCodeAt(i)
    }
    view.setUint32(at, count, true)
    at += 4
  }
  return out
}

/** Decodes a table, checking its structure. */
export function decodeWordCounts (bytes: Uint8Array): WordCount[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (bytes.length < 8 || view.getUint32(0, true) !== WORD_COUNT_MAGIC) {
    throw new Error('Not a word-count table')
  }
  const n = view.getUint32(4, true)
  const entries: WordCount[] = []
  let at = 8
  for (let i = 0; i < n; i++) {
    if (at >= bytes.length) {
      throw new Error('Truncated word-count table')
    }
    const len = bytes[at++]
    if (at + len + 4 > bytes.length) {
      throw new Error('Truncated word-count table')
    }
    const word = String.fromCharCode(...bytes.subarray(at, at + len))
    at += len
    entries.push({ word, count: view.getUint32(at, true) })
    at += 4
  }
  if (at !== bytes.length) {
    throw new Error('Trailing bytes after the word-count table')
  }
  return entries
}
