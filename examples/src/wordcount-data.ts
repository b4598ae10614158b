/**
 * A deterministic multi-MB text for the wordcount example: words from a fixed pseudo-vocabulary with a
 * Zipf-like frequency, some capitalised, with punctuation and line breaks. Every block is padded with spaces
 * to exactly `blockSize` bytes and ends with at least one space, so no word crosses a block boundary and any
 * block range can be counted on its own.
 */

export interface TextInit {
  /** Minimum size in bytes; the text is rounded up to whole blocks (default 4 MiB). */
  bytes?: number
  /** Block size in bytes (default 64 KiB). */
  blockSize?: number
  /** PRNG seed (default 1). */
  seed?: number
  /** Vocabulary size (default 5 000). */
  vocabulary?: number
}

export const DEFAULT_TEXT_BYTES = 4 * 1024 * 1024
export const DEFAULT_TEXT_BLOCK_SIZE = 64 * 1024

/** mulberry32: a small, fast, deterministic PRNG returning floats in [0, 1). */
function prng (seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'to', 'sa', 'vi', 'de', 'po', 'an', 'el', 'or', 'us', 'mesh',
  'job', 'wa', 'sm', 'ti', 'qu', 'ze', 'ly', 'ch', 'ph']

function vocabulary (size: number, random: () => number): string[] {
  const words = new Set<string>()
  while (words.size < size) {
    const n = 1 + Math.floor(random() * 4)
    let w = ''
    for (let i = 0; i < n; i++) {
      w += SYLLABLES[Math.floor(random() * SYLLABLES.length)]
    }
    if (random() < 0.05) {
      w += String(Math.floor(random() * 100))
    }
    words.add(w)
  }
  return [...words]
}

/** Generates the text. The same init gives the same bytes on every machine. */
export function generateText (init: TextInit = {}): Uint8Array {
  const blockSize = init.blockSize ?? DEFAULT_TEXT_BLOCK_SIZE
  const blocks = Math.max(1, Math.ceil((init.bytes ?? DEFAULT_TEXT_BYTES) / blockSize))
  const random = prng(init.seed ?? 1)
  const words = vocabulary(init.vocabulary ?? 5_000, random).map(w => new TextEncoder().encode(w))
  if (blockSize < 64) {
    throw new RangeError('blockSize must be at least 64 bytes')
  }
  // Zipf(1) over ranks: cumulative weights 1/1, 1/2, ...
  const cumulative = new Float64Array(words.length)
  let total = 0
  for (let r = 0; r < words.length; r++) {
    total += 1 / (r + 1)
    cumulative[r] = total
  }
  const pick = (): Uint8Array => {
    const x = random() * total
    let lo = 0
    let hi = cumulative.length - 1
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (cumulative[mid] < x) lo = mid + 1
      else hi = mid
    }
    return words[lo]
  }
  const text = new Uint8Array(blocks * blockSize).fill(0x20)
  for (let b = 0; b < blocks; b++) {
    let at = b * blockSize
    const end = at + blockSize - 1 // the last byte of every block stays a space
    let sentenceStart = true
    for (;;) {
      const word = pick()
      const sep = random()
      if (at + word.length + 2 > end) {
        break
      }
      text.set(word, at)
      if (sentenceStart || random() < 0.03) {
        text[at] -= 0x20 // capitalise (words start with a letter)
      }
      at += word.length
      sentenceStart = false
      if (sep < 0.06) {
        text[at++] = 0x2e // '.'
        sentenceStart = true
      } else if (sep < 0.12) {
        text[at++] = 0x2c // ','
      }
      text[at++] = sep > 0.97 ? 0x0a : 0x20
    }
  }
  return text
}
