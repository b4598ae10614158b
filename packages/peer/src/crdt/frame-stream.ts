import * as lp from 'it-length-prefixed'
import { concat } from 'uint8arrays/concat'
import { SyncProtocolError } from './errors.js'
import { decodeFrame, encodeFrame, FrameType } from './sync-frames.js'
import type { Frame } from './sync-frames.js'
import type { AbortOptions, Stream } from '@libp2p/interface'

/** Length-prefixed sync frames over a libp2p 3 (message-oriented) stream, with back-pressure. */
export class FrameStream {
  private readonly stream: Stream
  private readonly frames: AsyncGenerator<{ subarray(): Uint8Array }>
  private readonly chunkBytes: number
  private readonly maxDiffBytes: number

  constructor (stream: Stream, init: { chunkBytes: number, maxDiffBytes: number }) {
    this.stream = stream
    this.chunkBytes = init.chunkBytes
    this.maxDiffBytes = init.maxDiffBytes
    this.frames = lp.decode(stream, { maxDataLength: init.chunkBytes + 64 * 1024 })
  }

  /** The next frame; throws {@link SyncProtocolError} at end of stream. */
  async read (): Promise<Frame> {
    const next = await this.frames.next()
    if (next.done === true) {
      throw new SyncProtocolError('sync stream ended early')
    }
    return decodeFrame(next.value.subarray())
  }

  async write (frame: Frame, options?: AbortOptions): Promise<void> {
    if (!this.stream.send(lp.encode.single(encodeFrame(frame)))) {
      await this.stream.onDrain(options)
    }
  }

  /** Reads DIFF frames up to the last chunk and returns the whole update. */
  async readDiff (): Promise<Uint8Array> {
    const chunks: Uint8Array[] = []
    let size = 0
    for (;;) {
      const frame = await this.read()
      if (frame.type !== FrameType.DIFF) {
        throw new SyncProtocolError(`expected DIFF, got frame type ${frame.type}`)
      }
      size += frame.chunk.length
      if (size > this.maxDiffBytes) {
        throw new SyncProtocolError(`diff larger than ${this.maxDiffBytes} bytes`)
      }
      chunks.push(frame.chunk)
      if (frame.last) {
        break
      }
    }
    return chunks.length === 1 ? chunks[0] : concat(chunks, size)
  }

  /** Writes an update as DIFF frames of at most `chunkBytes`. */
  async writeDiff (update: Uint8Array, options?: AbortOptions): Promise<void> {
    let o = 0
    do {
      const end = Math.min(update.length, o + this.chunkBytes)
      await this.write({ type: FrameType.DIFF, last: end === update.length, chunk: update.subarray(o, end) }, options)
      o = end
    } while (o < update.length)
  }

  async close (options?: AbortOptions): Promise<void> {
    await this.stream.close(options)
  }

  abort (err: Error): void {
    this.stream.abort(err)
  }
}
