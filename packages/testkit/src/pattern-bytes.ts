/**
 * `n` bytes that repeat no 256 KiB chunk (so content added with them is not deduplicated into one block), different
 * for each `seed`.
 */
export function patternBytes (n: number, seed = 0): Uint8Array {
  return Uint8Array.from({ length: n }, (_, i) => (i * 31 + (i >> 8) + seed) & 0xff)
}
