import { anySignal } from '@jobmesh/contracts'
import { logger } from '@libp2p/logger'
import * as Y from 'yjs'
import { dropped } from './admit.js'
import { FrameStream } from './frame-stream.js'
import { noteSent } from './open-doc.js'
import { ORIGIN_SYNC_QUIET, ORIGIN_SYNC_PUSH } from './origins.js'
import { answerSync } from './sync.js'
import { FrameType } from './sync-frames.js'
import type { Admitted, UpdateAdmitted } from './admit.js'
import type { DocStoreMetrics } from './metrics.js'
import type { ApplyRemote, OpenDoc } from './open-doc.js'
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
  admitted: Admitted
  updateAdmitted: UpdateAdmitted
  applyRemote: ApplyRemote
  /** The stored state of a doc that is not open (a closed doc: a settled job's), or undefined when none is stored. */
  stored(name: string): Promise<Uint8Array | undefined>
}

/** The answering side of `/jobmesh/sync/1.0.0` (docs/crdt.md, Sync protocol): the protocol's stream handler. */
export type SyncResponder = (stream: Stream, connection: Connection) => Promise<void>

export function createSyncResponder (components: SyncResponderComponents): SyncResponder {
  const { metrics } = components

  async function serve (stream: Stream, connection: Connection): Promise<void> {
    const signal = anySignal([components.shutdown], components.syncTimeoutMs)
    const frames = new FrameStream(stream, { chunkBytes: components.syncChunkBytes, maxDiffBytes: components.maxSyncBytes })
    const onAbort = (): void => { frames.abort(signal.reason instanceof Error ? signal.reason : new Error('sync aborted')) }
    signal.addEventListener('abort', onAbort, { once: true })
    try {
      const request = await frames.read()
      if (request.type !== FrameType.REQUEST) {
        throw new Error(`expected REQUEST, got frame type ${request.type}`)
      }
      const entry = components.docs.get(request.name)
      if (entry == null) {
        const stored = await components.stored(request.name)
        if (stored != null) {
          await answerStored(frames, request, stored, signal)
          return
        }
        await frames.write({ type: FrameType.NOT_OPEN }, { signal })
        await frames.close({ signal })
        return
      }
      const from = connection.remotePeer.toString()
      // a peer not admitted may read the doc (a DApp following a job), never write it: its pushed diff is dropped
      const admitted = await components.admitted(from, request.name)
      const answering = answer(entry, frames, request, from, signal, admitted)
      const done = answering.then(() => {}, () => {})
      entry.serving.set(from, done)
      void done.finally(() => { if (entry.serving.get(from) === done) entry.serving.delete(from) })
      await answering
    } catch (err) {
      metrics.syncFailed++
      log('serving sync to %p failed: %e', connection.remotePeer, err)
      frames.abort(err as Error)
    } finally {
      signal.removeEventListener('abort', onAbort)
    }
  }

  async function answer (entry: OpenDoc, frames: FrameStream, request: { stateVector: Uint8Array, push: boolean, quiet?: boolean },
    from: string, signal: AbortSignal, admitted: boolean): Promise<void> {
    const published = entry.published
    const result = await answerSync(frames, entry.doc, request.stateVector, request.push, async update => {
      if (!admitted || await components.updateAdmitted(from, entry.name, update) !== 'yes') return dropped(metrics, entry.name, from, update)
      entry.pushSource = from
      try {
        return components.applyRemote(entry, update, request.quiet === true ? ORIGIN_SYNC_QUIET : ORIGIN_SYNC_PUSH) !== 'failed'
      } finally {
        entry.pushSource = undefined
      }
    }, { signal })
    metrics.syncServed++
    noteSent(entry, from, published)
    if (request.push && admitted) entry.synced.add(from)
    metrics.syncBytesIn += result.received
    metrics.syncBytesOut += result.sent
  }

  /**
   * A doc this peer closed (its job settled) is still read from its stored state, so that a DApp coming back for a
   * job's results, or a peer that lost its copy, finds it: read-only, a pushed diff is ignored (nobody writes a
   * closed doc's round any more).
   */
  async function answerStored (frames: FrameStream, request: { stateVector: Uint8Array, push: boolean }, stored: Uint8Array, signal: AbortSignal): Promise<void> {
    const doc = new Y.Doc()
    try {
      Y.applyUpdate(doc, stored)
      const result = await answerSync(frames, doc, request.stateVector, request.push, () => true, { signal })
      metrics.syncServed++
      metrics.syncServedClosed++
      metrics.syncBytesOut += result.sent
    } finally {
      doc.destroy()
    }
  }

  return serve
}
