import { logger } from '@libp2p/logger'
import * as Y from 'yjs'
import { GOSSIP_UPDATE_VERSION, MESH_PUBLISH_MIN_PEERS } from './constants.js'
import { ORIGIN_GOSSIP, ORIGIN_STORAGE, ORIGIN_SYNC_QUIET, ORIGIN_SYNC_PULL } from './origins.js'
import { countSent } from '../protocol/index.js'
import type { DocStoreComponents, SyncOptions } from './doc-store-types.js'
import type { DocStoreMetrics } from './metrics.js'
import type { OpenDoc } from './open-doc.js'
import type { SyncResult } from './sync.js'
import type { PeerId } from '@libp2p/interface'

const log = logger('jobmesh:crdt')

export interface FlushComponents {
  pubsub: Pick<DocStoreComponents['pubsub'], 'publish' | 'getSubscribers' | 'getMeshPeers'>
  counters?: DocStoreComponents['counters']
  metrics: DocStoreMetrics
  /** The open docs (the compaction timer visits the dirty ones). */
  docs: Map<string, OpenDoc>
  maxUpdateBytes: number
  compactEvery: number
  /** The store's `sync`: pushes an update too big for gossip. */
  sync(name: string, peer: PeerId, options: SyncOptions): Promise<SyncResult>
}

/** Writes of the open docs: persisted, published on gossip (or pushed over sync when too big), compacted. */
export interface Flusher {
  /** The update listener of an open doc: queues the update for this tick's flush. */
  onDocUpdate(entry: OpenDoc, update: Uint8Array, origin: unknown): void
  /** Persists and publishes the updates queued so far (chained after the doc's earlier writes). */
  scheduleFlush(entry: OpenDoc, pushSource: string | undefined): void
  /** Writes one snapshot of the doc in place of its stored updates. */
  compactNow(entry: OpenDoc): Promise<void>
  /** Compacts every doc changed since its last compaction (the timer). */
  compactDirty(): void
}

export function createFlusher (components: FlushComponents): Flusher {
  const { metrics } = components

  function onDocUpdate (entry: OpenDoc, update: Uint8Array, origin: unknown): void {
    if (origin === ORIGIN_STORAGE) return
    entry.toPersist.push(update)
    if (origin !== ORIGIN_GOSSIP && origin !== ORIGIN_SYNC_PULL && origin !== ORIGIN_SYNC_QUIET) {
      entry.toPublish.push(update)
      entry.published++
    }
    if (!entry.flushScheduled) {
      entry.flushScheduled = true
      const pushSource = entry.pushSource
      setImmediate(() => { scheduleFlush(entry, pushSource) })
    }
  }

  /** One tick's updates: merged, persisted, published (or pushed over sync when too big). */
  function scheduleFlush (entry: OpenDoc, pushSource: string | undefined): void {
    entry.flushScheduled = false
    const toPersist = entry.toPersist.splice(0)
    const toPublish = entry.toPublish.splice(0)
    entry.chain = entry.chain.then(async () => {
      if (toPersist.length > 0) {
        await entry.persistence.append(toPersist.length === 1 ? toPersist[0] : Y.mergeUpdates(toPersist))
        metrics.updatesPersisted++
        entry.dirtySinceCompaction = true
      }
      if (toPublish.length > 0) {
        const update = toPublish.length === 1 ? toPublish[0] : Y.mergeUpdates(toPublish)
        await publish(entry, update, pushSource)
      }
      if (entry.persistence.pending >= components.compactEvery) {
        await compactNow(entry)
      }
    }).catch(err => { log.error('flush of %s failed: %e', entry.name, err) })
  }

  async function publish (entry: OpenDoc, update: Uint8Array, pushSource: string | undefined): Promise<void> {
    if (update.length + 1 > components.maxUpdateBytes) {
      metrics.updatesOversized++
      const targets = subscribersBut(entry, pushSource)
      log('update of %d bytes on %s goes over sync to %d peers', update.length, entry.name, targets.length)
      pushOverSync(entry, targets, false)
      return
    }
    const data = new Uint8Array(update.length + 1)
    data[0] = GOSSIP_UPDATE_VERSION
    data.set(update, 1)
    // to the mesh once it has formed, else to every known subscriber (MESH_PUBLISH_MIN_PEERS)
    const floodPublish = (components.pubsub.getMeshPeers?.(entry.topic).length ?? 0) < MESH_PUBLISH_MIN_PEERS
    try {
      const { recipients } = await components.pubsub.publish(entry.topic, data, { floodPublish })
      metrics.updatesPublished++
      countSent(components.counters, 'doc', data.length)
      // After a flood publish, a known subscriber gossipsub could not send to (no outbound stream yet: a connection
      // just made) gets the update over sync; a mesh publish reaches the others through the mesh's forwarding. A
      // subscriber's exchange runs only when we published something since our last diff to it (catch-up.ts), so this
      // is the one path left for an update to a subscriber we knew. Quiet: the update is ours to publish, not its.
      if (floodPublish) {
        const reached = new Set(recipients.map(String))
        pushOverSync(entry, subscribersBut(entry, pushSource).filter(p => !reached.has(p.toString())), true)
      }
    } catch (err) {
      log('publish on %s failed: %e', entry.topic, err)
    }
  }

  /** The doc topic's known subscribers, but the peer the update came from. */
  function subscribersBut (entry: OpenDoc, pushSource: string | undefined): PeerId[] {
    return components.pubsub.getSubscribers(entry.topic).filter(p => p.toString() !== pushSource)
  }

  /**
   * Pushes the doc's new state to each of `peers` over sync. Fresh: an exchange already running with that peer
   * computed its diff before this update existed; joining it would push nothing of this update (the peer then lacked
   * it until some later exchange: a whole MacroJob's results missing for about a lease, the 8-peer no-op stall of
   * issue #10).
   */
  function pushOverSync (entry: OpenDoc, peers: PeerId[], quiet: boolean): void {
    for (const peer of peers) {
      components.sync(entry.name, peer, { push: true, fresh: true, quiet }).catch(err => {
        log('push of %s to %p failed: %e', entry.name, peer, err)
      })
    }
  }

  async function compactNow (entry: OpenDoc): Promise<void> {
    await entry.persistence.compact(Y.encodeStateAsUpdate(entry.doc))
    entry.dirtySinceCompaction = false
    metrics.compactions++
  }

  function compactDirty (): void {
    for (const entry of components.docs.values()) {
      if (entry.dirtySinceCompaction) {
        entry.chain = entry.chain.then(async () => compactNow(entry))
          .catch(err => { log.error('compaction of %s failed: %e', entry.name, err) })
      }
    }
  }

  return { onDocUpdate, scheduleFlush, compactNow, compactDirty }
}
