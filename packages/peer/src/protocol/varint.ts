/** Unsigned LEB128 varints (as in multiformats / libp2p), for lengths below 2^31. */

/** Bytes `value` takes as a varint. */
export function varintLength (value: number): number {
  let n = 1
  for (let v = value; v >= 0x80; v = Math.floor(v / 128)) n++
  return n
}

/** Writes `value` at `offset`; returns the offset after it. */
export function writeVarint (out: Uint8Array, offset: number, value: number): number {
  let v = value
  let o = offset
  while (v >= 0x80) {
    out[o++] = (v & 0x7f) | 0x80
    v = Math.floor(v / 128)
  }
  out[o++] = v
  return o
}

/** `head` followed by each part as `varint(len(part)) part` (the record encodings' layout). */
export function lengthPrefixed (parts: Uint8Array[], head: Uint8Array = new Uint8Array(0)): Uint8Array {
  const out = new Uint8Array(head.length + parts.reduce((n, p) => n + varintLength(p.length) + p.length, 0))
  out.set(head, 0)
  let o = head.length
  for (const p of parts) {
    o = writeVarint(out, o, p.length)
    out.set(p, o)
    o += p.length
  }
  return out
}

/** Reads a varint at `offset`: `[value, nextOffset]`, or undefined when truncated, over 4 bytes or not minimal. */
export function readVarint (bytes: Uint8Array, offset: number): [number, number] | undefined {
  let value = 0
  let shift = 0
  for (let o = offset; o < bytes.length && o < offset + 4; o++) {
    const b = bytes[o]
    value += (b & 0x7f) * 2 ** shift
    if ((b & 0x80) === 0) {
      if (b === 0 && o > offset) return undefined
      return [value, o + 1]
    }
    shift += 7
  }
  return undefined
}
