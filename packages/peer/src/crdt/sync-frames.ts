import { SyncProtocolError } from './errors.js'

/**
 * Frames of `/jobmesh/sync/1.0.0`. Each frame is sent length-prefixed (unsigned varint, it-length-prefixed) and
 * starts with a type byte:
 *
 * | type | name | body |
 * | --- | --- | --- |
 * | 1 | REQUEST | flags (bit 0: the initiator will push its diff; bit 1: quiet, do not re-broadcast it), varint name length, UTF-8 doc name, Yjs state vector |
 * | 2 | DIFF | flags (bit 0: last chunk), a chunk of a Yjs v1 update |
 * | 3 | STATE_VECTOR | Yjs state vector |
 * | 4 | NOT_OPEN | empty: the responder does not have the doc open |
 */
export const FrameType = {
  REQUEST: 1,
  DIFF: 2,
  STATE_VECTOR: 3,
  NOT_OPEN: 4
} as const

export type Frame =
  | { type: typeof FrameType.REQUEST, push: boolean, quiet?: boolean, name: string, stateVector: Uint8Array }
  | { type: typeof FrameType.DIFF, last: boolean, chunk: Uint8Array }
  | { type: typeof FrameType.STATE_VECTOR, stateVector: Uint8Array }
  | { type: typeof FrameType.NOT_OPEN }

const encoder = new TextEncoder()
const decoder = new TextDecoder('utf-8', { fatal: true })

function varint (n: number): number[] {
  const out: number[] = []
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80)
    n = Math.floor(n / 128)
  }
  out.push(n)
  return out
}

export function encodeFrame (frame: Frame): Uint8Array {
  switch (frame.type) {
    case FrameType.REQUEST: {
      const name = encoder.encode(frame.name)
      const len = varint(name.length)
      const out = new Uint8Array(2 + len.length + name.length + frame.stateVector.length)
      out[0] = frame.type
      out[1] = (frame.push ? 1 : 0) | (frame.quiet === true ? 2 : 0)
      out.set(len, 2)
      out.set(name, 2 + len.length)
      out.set(frame.stateVector, 2 + len.length + name.length)
      return out
    }
    case FrameType.DIFF: {
      const out = new Uint8Array(2 + frame.chunk.length)
      out[0] = frame.type
      out[1] = frame.last ? 1 : 0
      out.set(frame.chunk, 2)
      return out
    }
    case FrameType.STATE_VECTOR: {
      const out = new Uint8Array(1 + frame.stateVector.length)
      out[0] = frame.type
      out.set(frame.stateVector, 1)
      return out
    }
    case FrameType.NOT_OPEN:
      return Uint8Array.of(frame.type)
  }
}

/** @throws SyncProtocolError on an unknown type or a truncated frame */
export function decodeFrame (bytes: Uint8Array): Frame {
  const type = bytes[0]
  switch (type) {
    case FrameType.REQUEST: {
      if (bytes.length < 3) throw new SyncProtocolError('truncated REQUEST')
      let len = 0
      let shift = 1
      let o = 2
      for (;;) {
        if (o >= bytes.length || o > 6) throw new SyncProtocolError('bad name length in REQUEST')
        const b = bytes[o++]
        len += (b & 0x7f) * shift
        shift *= 128
        if ((b & 0x80) === 0) break
      }
      if (o + len > bytes.length) throw new SyncProtocolError('truncated name in REQUEST')
      let name: string
      try {
        name = decoder.decode(bytes.subarray(o, o + len))
      } catch {
        throw new SyncProtocolError('doc name is not UTF-8')
      }
      return { type, push: (bytes[1] & 1) === 1, quiet: (bytes[1] & 2) === 2, name, stateVector: bytes.subarray(o + len) }
    }
    case FrameType.DIFF:
      if (bytes.length < 2) throw new SyncProtocolError('truncated DIFF')
      return { type, last: (bytes[1] & 1) === 1, chunk: bytes.subarray(2) }
    case FrameType.STATE_VECTOR:
      return { type, stateVector: bytes.subarray(1) }
    case FrameType.NOT_OPEN:
      return { type }
    default:
      throw new SyncProtocolError(`unknown frame type ${String(type)}`)
  }
}
