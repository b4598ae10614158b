import { anySignal } from '@jobmesh/contracts'
import { logger } from '@libp2p/logger'
import { dropped } from './admit.js'
import { DEFAULT_MAX_PUSH_BYTES, MAX_STORED_ANSWERS_PER_PEER } from './constants.js'
import { DiffTooLargeError, SyncProtocolError } from './errors.js'
import { FrameStream } from './frame-stream.js'
import { noteSent } from './open-doc.js'
import { PeerSlots } from './peer-slots.js'
import { ORIGIN_SYNC_QUIET, ORIGIN_SYNC_PUSH } from './origins.js'
import { answerSync, docSource, storedSource } from './sync.js'
import { FrameType } from './sync-frames.js'
import type { Admitted, UpdateAdmitted } from './admit.js'
import type { DocStoreMetrics } from './metrics.js'
import type { ApplyRemote, OpenDoc } from './open-doc.js'
import type { PushIntake } from './sync.js'
import type { Connection, Stream } from '@libp2p/interface'

const log = logger('jobmesh:crdt')

export interface SyncResponderComponents {
  metrics: DocStoreMetrics
  docs: Map<string, OpenDoc>
  /** Aborted when the store stops. */
  shutdown: AbortSignal
  syncTimeoutMs: number
  syncChunkBytes: number
  maxSyncBytes: number
  /** Largest diff a peer may push. Default {@link DEFAULT_MAX_PUSH_BYTES}. */
  maxPushBytes?: number
  /** Answers of closed docs served to one peer at once. Default {@link MAX_STORED_ANSWERS_PER_PEER}. */
  maxStoredAnswersPerPeer?: number
  admitted: Admitted
  updateAdmitted: UpdateAdmitted
  applyRemote: ApplyRemote
  /** The stored state of a doc that is not open (a closed doc: a settled job's), or undefined when none is stored. */
  stored(name: string): Promise<Uint8Array | undefined>
}

/** The answering side of `/jobmesh/sync/1.0.0` (docs/crdt.md, Sync protocol): the protocol's stream handler. */
export type SyncResponder = (stream: Stream, connection: Connection) => Promise<void>

interface Request { stateVector: Uint8Array, push: boolean, quiet?: boolean, name: string }

export function createSyncResponder (components: SyncResponderComponents): SyncResponder {
  const { metrics } = components
  const maxPushBytes = components.maxPushBytes ?? DEFAULT_MAX_PUSH_BYTES
  const storedAnswers = new PeerSlots(components.maxStoredAnswersPerPeer ?? MAX_STORED_ANSWERS_PER_PEER)

  async function serve (stream: Stream, connection: Connection): Promise<void> {
    const signal = anySignal([components.shutdown], components.syncTimeoutMs)
    const frames = new FrameStream(stream, { chunkBytes: components.syncChunkBytes, maxDiffBytes: components.maxSyncBytes })
    const onAbort = (): void => { frames.abort(signal.reason instanceof Error ? signal.reason : new Error('sync aborted')) }
    signal.addEventListener('abort', onAbort, { once: true })
    const from = connection.remotePeer.toString()
    try {
      const request = await readRequest(frames)
      const entry = components.docs.get(request.name)
      if (entry == null) {
        await answerClosed(frames, request, from, signal)
      } else {
        await answerOpen(entry, frames, request, from, signal)
      }
    } catch (err) {
      failed(err as Error, from)
      frames.abort(err as Error)
    } finally {
      signal.removeEventListener('abort', onAbort)
    }
  }

  async function readRequest (frames: FrameStream): Promise<Request> {
    const request = await frames.read()
    if (request.type !== FrameType.REQUEST) {
      throw new SyncProtocolError(`expected REQUEST, got frame type ${request.type}`)
    }
    return request
  }

  /** A push over the cap is refused (nothing of it applied); anything else failed. */
  function failed (err: Error, from: string): void {
    if (err.name === DiffTooLargeError.name) {
      metrics.syncRefused++
      log('refused a push from %s: %s', from, err.message)
      return
    }
    metrics.syncFailed++
    log('serving sync to %s failed: %e', from, err)
  }

  async function answerOpen (entry: OpenDoc, frames: FrameStream, request: Request, from: string, signal: AbortSignal): Promise<void> {
    // a peer not admitted may read the doc (a DApp following a job), never write it: its push is declined unread
    const admitted = await components.admitted(from, request.name)
    if (request.push && !admitted) {
      metrics.syncRefused++
      log('declined a push of %s from %s, not admitted to it', request.name, from)
    }
    const answering = answer(entry, frames, request, from, signal, admitted)
    const done = answering.then(() => {}, () => {})
    entry.serving.set(from, done)
    void done.finally(() => { if (entry.serving.get(from) === done) entry.serving.delete(from) })
    await answering
  }

  async function answer (entry: OpenDoc, frames: FrameStream, request: Request, from: string, signal: AbortSignal, admitted: boolean): Promise<void> {
    const published = entry.published
    const intake = admitted ? pushIntake(entry, request, from) : undefined
    const result = await answerSync(frames, docSource(entry.doc), request, intake, { signal })
    metrics.syncServed++
    noteSent(entry, from, published)
    if (request.push && admitted) entry.synced.add(from)
    metrics.syncBytesIn += result.received
    metrics.syncBytesOut += result.sent
  }

  /** How an admitted peer's push is taken: at most `maxPushBytes`, then its content checked and applied. */
  function pushIntake (entry: OpenDoc, request: Request, from: string): PushIntake {
    const apply = async (update: Uint8Array): Promise<boolean> => {
      if (await components.updateAdmitted(from, entry.name, update) !== 'yes') return dropped(metrics, entry.name, from, update)
      entry.pushSource = from
      try {
        return components.applyRemote(entry, update, request.quiet === true ? ORIGIN_SYNC_QUIET : ORIGIN_SYNC_PUSH) !== 'failed'
      } finally {
        entry.pushSource = undefined
      }
    }
    return { maxBytes: maxPushBytes, apply }
  }

  /**
   * A doc this peer closed (its job settled) is still read from its stored state, so that a DApp coming back for a
   * job's results, or a peer that lost its copy, finds it: read-only, a push is declined (nobody writes a closed
   * doc's round any more). At most `maxStoredAnswersPerPeer` such answers per peer at once, each a diff of the
   * stored update (no doc is built of it).
   */
  async function answerClosed (frames: FrameStream, request: Request, from: string, signal: AbortSignal): Promise<void> {
    const release = await storedAnswers.acquire(from, signal)
    try {
      const stored = await components.stored(request.name)
      if (stored == null) {
        await frames.write({ type: FrameType.NOT_OPEN }, { signal })
        await frames.close({ signal })
        return
      }
      const result = await answerSync(frames, storedSource(stored), request, undefined, { signal })
      metrics.syncServed++
      metrics.syncServedClosed++
      metrics.syncBytesOut += result.sent
    } finally {
      release()
    }
  }

  return serve
}
