import { MAX_WORD_BYTES, encodeWordCounts } from './wordcount-table.js'

function isWordByte (c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)
}

/** Counts the words of `text` in TypeScript: the reference for the wasm module. Returns the encoded table. */
export function countWords (text: Uint8Array): Uint8Array {
  const counts = new Map<string, number>()
  let start = -1
  for (let i = 0; i <= text.length; i++) {
    const word = i < text.length && isWordByte(text[i])
    if (word) {
      if (start < 0) {
        start = i
      }
    } else if (start >= 0) {
      if (i - start <= MAX_WORD_BYTES) {
        const w = String.fromCharCode(...text.subarray(start, i)).toLowerCase()
        counts.set(w, (counts.get(w) ?? 0) + 1)
      }
      start = -1
    }
  }
  return encodeWordCounts([...counts].map(([word, count]) => ({ word, count })))
}
