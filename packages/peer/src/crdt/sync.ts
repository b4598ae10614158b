import * as Y from 'yjs'
import { DocNotFoundError, SyncProtocolError } from './errors.js'
import { FrameType } from './sync-frames.js'
import type { FrameStream } from './frame-stream.js'
import { logger } from '@libp2p/logger'
import type { AbortOptions } from '@libp2p/interface'

const log = logger('jobmesh:crdt:sync')

/** What one sync exchange moved. */
export interface SyncResult {
  /** Bytes of the diff received from the other side. */
  received: number
  /** Bytes of the diff sent to the other side. */
  sent: number
}

/** Applies a remote diff to a doc (or drops it); returns false if Yjs refused it. */
export type ApplyDiff = (update: Uint8Array) => boolean | Promise<boolean>

function decodeStateVector (sv: Uint8Array): void {
  try {
    Y.decodeStateVector(sv)
  } catch {
    throw new SyncProtocolError('malformed state vector')
  }
}

/**
 * The initiator side: REQUEST(name, our state vector) -> their DIFF (+ their STATE_VECTOR when pushing) -> our DIFF.
 *
 * @throws DocNotFoundError when the remote does not have the doc open
 */
export async function initiateSync (frames: FrameStream, name: string, doc: Y.Doc, push: boolean, apply: ApplyDiff, options?: AbortOptions & { quiet?: boolean }): Promise<SyncResult> {
  const start = Date.now()
  await frames.write({ type: FrameType.REQUEST, push, quiet: options?.quiet, name, stateVector: Y.encodeStateVector(doc) }, options)
  const first = await frames.read()
  if (first.type === FrameType.NOT_OPEN) {
    throw new DocNotFoundError(`remote does not have ${name} open`)
  }
  if (first.type !== FrameType.DIFF) {
    throw new SyncProtocolError(`expected DIFF or NOT_OPEN, got frame type ${first.type}`)
  }
  let diff: Uint8Array
  if (first.last) {
    diff = first.chunk
  } else {
    const rest = await frames.readDiff()
    diff = new Uint8Array(first.chunk.length + rest.length)
    diff.set(first.chunk)
    diff.set(rest, first.chunk.length)
  }
  const received = Date.now()
  if (!(await apply(diff))) {
    throw new SyncProtocolError('remote diff was not a valid Yjs update')
  }
  log('%s: %d diff bytes in %d ms, applied in %d ms', name, diff.length, received - start, Date.now() - received)
  let sent = 0
  if (push) {
    const sv = await frames.read()
    if (sv.type !== FrameType.STATE_VECTOR) {
      throw new SyncProtocolError(`expected STATE_VECTOR, got frame type ${sv.type}`)
    }
    decodeStateVector(sv.stateVector)
    const ours = Y.encodeStateAsUpdate(doc, sv.stateVector)
    await frames.writeDiff(ours, options)
    sent = ours.length
  }
  await frames.close(options)
  return { received: diff.length, sent }
}

/** The responder side, after the REQUEST was read and the doc found. */
export async function answerSync (frames: FrameStream, doc: Y.Doc, stateVector: Uint8Array, push: boolean, apply: ApplyDiff, options?: AbortOptions): Promise<SyncResult> {
  decodeStateVector(stateVector)
  const start = Date.now()
  const diff = Y.encodeStateAsUpdate(doc, stateVector)
  const encoded = Date.now()
  await frames.writeDiff(diff, options)
  log('answer: %d diff bytes encoded in %d ms, written in %d ms', diff.length, encoded - start, Date.now() - encoded)
  let received = 0
  if (push) {
    await frames.write({ type: FrameType.STATE_VECTOR, stateVector: Y.encodeStateVector(doc) }, options)
    const theirs = await frames.readDiff()
    received = theirs.length
    if (!(await apply(theirs))) {
      throw new SyncProtocolError('pushed diff was not a valid Yjs update')
    }
  }
  await frames.close(options)
  return { received, sent: diff.length }
}
