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
  /**
   * The initiator asked to push and the responder declined it (DIFF flag no-push: this peer may not write the doc
   * there, or the doc is closed there): the exchange was a pull, nothing was sent.
   */
  pushDeclined?: boolean
}

/** Applies a remote diff to a doc (or drops it); returns false if Yjs refused it. */
export type ApplyDiff = (update: Uint8Array) => boolean | Promise<boolean>

/** What the responder answers from: an open doc, or a closed doc's stored state. */
export interface SyncSource {
  /** What a peer with this state vector lacks, as one update. */
  diff(stateVector: Uint8Array): Uint8Array
  stateVector(): Uint8Array
}

/** How the responder takes a pushed diff: at most `maxBytes`, applied by `apply`. */
export interface PushIntake {
  maxBytes: number
  apply: ApplyDiff
}

function decodeStateVector (sv: Uint8Array): void {
  try {
    Y.decodeStateVector(sv)
  } catch {
    throw new SyncProtocolError('malformed state vector')
  }
}

/** Answers from an open doc. */
export function docSource (doc: Y.Doc): SyncSource {
  return { diff: sv => Y.encodeStateAsUpdate(doc, sv), stateVector: () => Y.encodeStateVector(doc) }
}

/** Answers from a stored update, without building a doc of it (Yjs reads the encoded update once). */
export function storedSource (update: Uint8Array): SyncSource {
  return { diff: sv => Y.diffUpdate(update, sv), stateVector: () => Y.encodeStateVectorFromUpdate(update) }
}

/**
 * The initiator side: REQUEST(name, our state vector) -> their DIFF (+ their STATE_VECTOR when pushing, unless the
 * DIFF's last chunk says no push) -> our DIFF.
 *
 * @throws DocNotFoundError when the remote does not have the doc open
 */
export async function initiateSync (frames: FrameStream, name: string, doc: Y.Doc, push: boolean, apply: ApplyDiff, options?: AbortOptions & { quiet?: boolean }): Promise<SyncResult> {
  const start = Date.now()
  frames.expectDiff()
  await frames.write({ type: FrameType.REQUEST, push, quiet: options?.quiet, name, stateVector: Y.encodeStateVector(doc) }, options)
  const first = await frames.read()
  if (first.type === FrameType.NOT_OPEN) {
    throw new DocNotFoundError(`remote does not have ${name} open`)
  }
  if (first.type !== FrameType.DIFF) {
    throw new SyncProtocolError(`expected DIFF or NOT_OPEN, got frame type ${first.type}`)
  }
  const theirs = await frames.readDiff(undefined, first)
  const received = Date.now()
  if (!(await apply(theirs.update))) {
    throw new SyncProtocolError('remote diff was not a valid Yjs update')
  }
  log('%s: %d diff bytes in %d ms, applied in %d ms', name, theirs.update.length, received - start, Date.now() - received)
  const declined = push && theirs.noPush
  const sent = push && !declined ? await pushOurs(frames, doc, options) : 0
  await frames.close(options)
  return declined ? { received: theirs.update.length, sent, pushDeclined: true } : { received: theirs.update.length, sent }
}

/** The initiator's push: their STATE_VECTOR -> our DIFF; returns its bytes. */
async function pushOurs (frames: FrameStream, doc: Y.Doc, options?: AbortOptions): Promise<number> {
  const sv = await frames.read()
  if (sv.type !== FrameType.STATE_VECTOR) {
    throw new SyncProtocolError(`expected STATE_VECTOR, got frame type ${sv.type}`)
  }
  decodeStateVector(sv.stateVector)
  const ours = Y.encodeStateAsUpdate(doc, sv.stateVector)
  await frames.writeDiff(ours, options)
  return ours.length
}

/**
 * The responder side, after the REQUEST was read and the doc found. A push is read through `intake`; without one
 * (the initiator may not write the doc, or it is closed) a requested push is declined: the diff's last chunk says so,
 * no STATE_VECTOR follows, and the stream is reset once the diff is sent, so nothing the initiator sends is read.
 *
 * @throws DiffTooLargeError when a push passes `intake.maxBytes` (nothing of it is applied)
 */
export async function answerSync (frames: FrameStream, source: SyncSource, request: { stateVector: Uint8Array, push: boolean },
  intake: PushIntake | undefined, options?: AbortOptions): Promise<SyncResult> {
  decodeStateVector(request.stateVector)
  const start = Date.now()
  const diff = source.diff(request.stateVector)
  const encoded = Date.now()
  const declined = request.push && intake == null
  await frames.writeDiff(diff, { ...options, noPush: declined })
  log('answer: %d diff bytes encoded in %d ms, written in %d ms', diff.length, encoded - start, Date.now() - encoded)
  if (declined) {
    await frames.closeUnread(options)
    return { received: 0, sent: diff.length, pushDeclined: true }
  }
  const received = request.push && intake != null ? await takePush(frames, source, intake, options) : 0
  await frames.close(options)
  return { received, sent: diff.length }
}

/** The responder's side of a push: our STATE_VECTOR -> their DIFF, applied; returns its bytes. */
async function takePush (frames: FrameStream, source: SyncSource, intake: PushIntake, options?: AbortOptions): Promise<number> {
  frames.expectDiff(intake.maxBytes)
  await frames.write({ type: FrameType.STATE_VECTOR, stateVector: source.stateVector() }, options)
  const theirs = await frames.readDiff(intake.maxBytes)
  if (!(await intake.apply(theirs.update))) {
    throw new SyncProtocolError('pushed diff was not a valid Yjs update')
  }
  return theirs.update.length
}
