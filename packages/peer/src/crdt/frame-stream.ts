import * as lp from 'it-length-prefixed'
import { concat } from 'uint8arrays/concat'
import { SYNC_READ_AHEAD_FRAMES } from './constants.js'
import { DiffTooLargeError, SyncProtocolError } from './errors.js'
import { decodeFrame, encodeFrame, FrameType } from './sync-frames.js'
import type { Frame } from './sync-frames.js'
import type { AbortOptions, Stream, StreamCloseEvent, StreamMessageEvent } from '@libp2p/interface'

/** Room a frame may take beyond a diff chunk (type, flags; a REQUEST's name and state vector). */
const FRAME_OVERHEAD_BYTES = 64 * 1024

/**
 * DIFF flags bit 1 (bit 0: last chunk), set on the last chunk of a responder's diff: it will not read a pushed diff
 * (the initiator is not admitted to write the doc, or the doc is closed there), so it sends no STATE_VECTOR and the
 * initiator ends the exchange after the pull. Older peers ignore the bit (docs/crdt.md, Sync protocol).
 */
export const DIFF_FLAG_NO_PUSH = 2

/** A DIFF frame as read, with its no-push flag. */
export type DiffFrame = Extract<Frame, { type: typeof FrameType.DIFF }> & { noPush: boolean }

/** A frame as read: a DIFF carries its no-push flag. */
export type ReadFrame = Exclude<Frame, { type: typeof FrameType.DIFF }> | DiffFrame

/** A whole diff read from its DIFF frames, and whether its sender wants no push (its last chunk's flag). */
export interface ReceivedDiff {
  update: Uint8Array
  noPush: boolean
}

type Chunk = StreamMessageEvent['data']

/**
 * The bytes a stream received that its reader has not taken yet, at most `limit`: past that the stream is aborted.
 * libp2p's own iterator of a stream queues all that arrives while its reader is busy, without a bound.
 */
class Intake implements AsyncIterable<Chunk> {
  private readonly stream: Stream
  private limit: number
  private readonly chunks: Chunk[] = []
  private bytes = 0
  private closed = false
  private error?: Error
  private wake?: () => void

  constructor (stream: Stream, limit: number) {
    this.stream = stream
    this.limit = limit
    stream.addEventListener('message', this.onMessage)
    stream.addEventListener('close', this.onClose)
    stream.addEventListener('end', this.onEnd)
  }

  async * [Symbol.asyncIterator] (): AsyncGenerator<Chunk> {
    for (;;) {
      const chunk = this.chunks.shift()
      if (chunk != null) {
        this.bytes -= chunk.byteLength
        yield chunk
        continue
      }
      // what arrived before a reset is still read (a responder resets after its last frame)
      if (this.error != null) throw this.error
      if (this.closed || this.stream.readableEnded) return
      await new Promise<void>(resolve => { this.wake = resolve })
    }
  }

  /** Bounds the bytes queued from now on (and those queued already). */
  setLimit (limit: number): void {
    this.limit = limit
    this.check()
  }

  private readonly onMessage = (evt: StreamMessageEvent): void => {
    if (this.error != null) return
    this.chunks.push(evt.data)
    this.bytes += evt.data.byteLength
    this.check()
    this.notify()
  }

  private check (): void {
    if (this.bytes <= this.limit) return
    const err = new SyncProtocolError(`peer sent more than ${this.limit} bytes ahead of the reader`)
    this.drop(err)
    this.stream.abort(err)
  }

  private readonly onClose = (evt: StreamCloseEvent): void => {
    this.closed = true
    // aborted here: nothing more is read
    if (evt.error != null && evt.local === true) this.drop(evt.error)
    else if (evt.error != null) this.error ??= evt.error
    this.notify()
  }

  private readonly onEnd = (): void => { this.notify() }

  private drop (err: Error): void {
    this.error ??= err
    this.chunks.length = 0
    this.bytes = 0
  }

  private notify (): void {
    const wake = this.wake
    this.wake = undefined
    wake?.()
  }
}

/**
 * Length-prefixed sync frames over a libp2p 3 (message-oriented) stream, with back-pressure. What the other side
 * sends before it is read is bounded: `SYNC_READ_AHEAD_FRAMES` frames, and while a diff is expected
 * ({@link expectDiff}, {@link readDiff}) that diff's bound too, as a diff arrives in bursts (yamux grants a stream up
 * to 16 MiB of window as data arrives, whether it was read or not). Past it the stream is aborted.
 */
export class FrameStream {
  private readonly stream: Stream
  private readonly intake: Intake
  private readonly frames: AsyncGenerator<{ subarray(): Uint8Array }>
  private readonly chunkBytes: number
  private readonly maxDiffBytes: number
  private readonly readAheadBytes: number

  constructor (stream: Stream, init: { chunkBytes: number, maxDiffBytes: number }) {
    this.stream = stream
    this.chunkBytes = init.chunkBytes
    this.maxDiffBytes = init.maxDiffBytes
    const maxFrameBytes = init.chunkBytes + FRAME_OVERHEAD_BYTES
    this.readAheadBytes = SYNC_READ_AHEAD_FRAMES * maxFrameBytes
    this.intake = new Intake(stream, this.readAheadBytes)
    this.frames = lp.decode(this.intake, { maxDataLength: maxFrameBytes })
  }

  /**
   * The other side may now send a diff of up to `maxBytes` (default: the stream's `maxDiffBytes`): it may arrive
   * before it is read. Call it before the frame that asks for the diff; the next {@link readDiff} ends it.
   */
  expectDiff (maxBytes = this.maxDiffBytes): void {
    this.intake.setLimit(maxBytes + this.readAheadBytes)
  }

  /** The next frame; throws {@link SyncProtocolError} at end of stream. */
  async read (): Promise<ReadFrame> {
    const next = await this.frames.next()
    if (next.done === true) {
      throw new SyncProtocolError('sync stream ended early')
    }
    const bytes = next.value.subarray()
    const frame = decodeFrame(bytes)
    return frame.type === FrameType.DIFF ? { ...frame, noPush: (bytes[1] & DIFF_FLAG_NO_PUSH) !== 0 } : frame
  }

  async write (frame: Frame, options?: AbortOptions): Promise<void> {
    await this.send(encodeFrame(frame), options)
  }

  private async send (bytes: Uint8Array, options?: AbortOptions): Promise<void> {
    if (!this.stream.send(lp.encode.single(bytes))) {
      await this.stream.onDrain(options)
    }
  }

  /**
   * Reads DIFF frames up to the last chunk (`first`: one already read) and returns the whole update. Stops with
   * {@link DiffTooLargeError} at the frame that takes it past `maxBytes` (default: the stream's `maxDiffBytes`).
   */
  async readDiff (maxBytes = this.maxDiffBytes, first?: DiffFrame): Promise<ReceivedDiff> {
    this.expectDiff(maxBytes)
    try {
      const chunks: Uint8Array[] = []
      let size = 0
      for (let frame = first ?? await this.readDiffFrame(); ; frame = await this.readDiffFrame()) {
        size += frame.chunk.length
        if (size > maxBytes) {
          throw new DiffTooLargeError(maxBytes)
        }
        chunks.push(frame.chunk)
        if (frame.last) {
          return { update: chunks.length === 1 ? chunks[0] : concat(chunks, size), noPush: frame.noPush }
        }
      }
    } finally {
      this.intake.setLimit(this.readAheadBytes)
    }
  }

  private async readDiffFrame (): Promise<DiffFrame> {
    const frame = await this.read()
    if (frame.type !== FrameType.DIFF) {
      throw new SyncProtocolError(`expected DIFF, got frame type ${frame.type}`)
    }
    return frame
  }

  /** Writes an update as DIFF frames of at most `chunkBytes`; `noPush` flags the last one ({@link DIFF_FLAG_NO_PUSH}). */
  async writeDiff (update: Uint8Array, options?: AbortOptions & { noPush?: boolean }): Promise<void> {
    let o = 0
    do {
      const end = Math.min(update.length, o + this.chunkBytes)
      const last = end === update.length
      const bytes = encodeFrame({ type: FrameType.DIFF, last, chunk: update.subarray(o, end) })
      if (last && options?.noPush === true) bytes[1] |= DIFF_FLAG_NO_PUSH
      await this.send(bytes, options)
      o = end
    } while (o < update.length)
  }

  async close (options?: AbortOptions): Promise<void> {
    await this.stream.close(options)
  }

  /**
   * Closes our side once what we wrote is sent, then resets the stream: whatever the other side sends is dropped
   * unread (a push the responder declined).
   */
  async closeUnread (options?: AbortOptions): Promise<void> {
    await this.stream.close(options)
    this.stream.abort(new SyncProtocolError('exchange over: nothing more is read'))
  }

  abort (err: Error): void {
    this.stream.abort(err)
  }
}
