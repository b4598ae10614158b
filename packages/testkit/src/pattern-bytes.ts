/**
 * `n` bytes of a xorshift32 stream seeded by `seed`: no chunk of them repeats (so content added with them is not
 * deduplicated into fewer blocks), and each `seed` gives other bytes.
 */
export function patternBytes (n: number, seed = 0): Uint8Array {
  const out = new Uint8Array(n)
  let x = (0x9e3779b9 ^ seed) >>> 0 || 1
  for (let i = 0; i < n; i++) {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    x >>>= 0
    out[i] = x & 0xff
  }
  return out
}
