import { timeoutSignal } from '@jobmesh/contracts'
import { raceSignal } from 'race-signal'
import { logger } from '@libp2p/logger'
import * as Y from 'yjs'
import { admissionCheck, updateCheck } from './admit.js'
import { createCatchUp } from './catch-up.js'
import {
  DEFAULT_COMPACT_EVERY, DEFAULT_COMPACT_INTERVAL_MS, DEFAULT_CONFIRM_TIMEOUT_MS, DEFAULT_MAX_SYNC_BYTES,
  DEFAULT_GOSSIP_BURST, DEFAULT_GOSSIP_RATE_PER_SECOND, DEFAULT_MAX_UPDATE_BYTES, DEFAULT_PENDING_PULL_INTERVAL_MS,
  DEFAULT_SYNC_CHUNK_BYTES, DEFAULT_SYNC_CONCURRENCY, DEFAULT_SYNC_TIMEOUT_MS, SYNC_PROTOCOL
} from './constants.js'
import { DocNotOpenError, DocStoreStoppedError } from './errors.js'
import { createFlusher } from './flush.js'
import { guardTopic, heldBackBudget, rateLimiter } from './gossip-guard.js'
import { createGossipReceiver } from './gossip-receiver.js'
import { createMetrics } from './metrics.js'
import { assertDocName, docTopic } from './names.js'
import { dropDeletesAhead, openDocEntry, remoteApplier } from './open-doc.js'
import { ORIGIN_STORAGE } from './origins.js'
import { DocPersistence } from './persistence.js'
import { createSyncInitiator } from './sync-initiator.js'
import { createSyncResponder } from './sync-responder.js'
import type { CatchUp } from './catch-up.js'
import type { ConfirmOptions, ConfirmResult, DocStore, DocStoreComponents, DocStoreInit, OpenOptions, SyncOptions } from './doc-store-types.js'
import type { Flusher } from './flush.js'
import type { GossipReceiver } from './gossip-receiver.js'
import type { OpenDoc } from './open-doc.js'
import type { SyncResult } from './sync.js'
import type { InflightSyncs, SyncInitiator } from './sync-initiator.js'
import type { PeerId } from '@libp2p/interface'

export { ORIGIN_GOSSIP, ORIGIN_STORAGE, ORIGIN_SYNC_PULL, ORIGIN_SYNC_PUSH } from './origins.js'
export type { ConfirmOptions, ConfirmResult, DocStore, DocStoreComponents, DocStoreInit, OpenOptions, CatchUpMode, SyncOptions } from './doc-store-types.js'

const log = logger('jobmesh:crdt')

/**
 * The wiring of the store: open, close, flush, compaction and stop; the roles live in their own files (local
 * writes: flush.ts; gossip in: gossip-receiver.ts; sync: sync-initiator.ts, sync-responder.ts, catch-up.ts).
 */
class DefaultDocStore implements DocStore {
  readonly metrics = createMetrics()
  private readonly components: DocStoreComponents
  private readonly docs = new Map<string, OpenDoc>()
  private readonly opening = new Map<string, Promise<Y.Doc>>()
  private readonly inflight: InflightSyncs = new Map()
  private readonly shutdown = new AbortController()
  private readonly handling: Promise<void>
  private readonly compactTimer?: ReturnType<typeof setInterval>
  private readonly init: DocStoreInit
  private readonly flusher: Flusher
  private readonly gossip: GossipReceiver
  private readonly initiator: SyncInitiator
  private readonly catchUp: CatchUp
  private stopped = false

  constructor (components: DocStoreComponents, init: DocStoreInit) {
    this.components = components
    this.init = init
    const maxUpdateBytes = init.maxUpdateBytes ?? DEFAULT_MAX_UPDATE_BYTES
    const syncTimeoutMs = init.syncTimeoutMs ?? DEFAULT_SYNC_TIMEOUT_MS
    const syncChunkBytes = init.syncChunkBytes ?? DEFAULT_SYNC_CHUNK_BYTES
    const maxSyncBytes = init.maxSyncBytes ?? DEFAULT_MAX_SYNC_BYTES
    const syncConcurrency = init.syncConcurrency ?? DEFAULT_SYNC_CONCURRENCY
    const compactEvery = init.compactEvery ?? DEFAULT_COMPACT_EVERY
    const confirmTimeoutMs = init.confirmTimeoutMs ?? DEFAULT_CONFIRM_TIMEOUT_MS
    const pendingPullIntervalMs = init.pendingPullIntervalMs ?? DEFAULT_PENDING_PULL_INTERVAL_MS
    const interval = init.compactIntervalMs ?? DEFAULT_COMPACT_INTERVAL_MS
    const { metrics, docs } = this
    const sync = (name: string, peer: PeerId, options: SyncOptions): Promise<SyncResult> => this.sync(name, peer, options)
    this.flusher = createFlusher({
      pubsub: components.pubsub, counters: components.counters, metrics, docs, maxUpdateBytes, compactEvery, sync
    })
    const applyRemote = remoteApplier({ metrics, init, onDocUpdate: this.flusher.onDocUpdate })
    const admitted = admissionCheck({ peerId: components.peerId, init })
    const updateAdmitted = updateCheck({ peerId: components.peerId, init })
    const validators = components.pubsub.topicValidators
    this.gossip = createGossipReceiver({
      counters: components.counters, metrics, docs, maxUpdateBytes, pendingPullIntervalMs, admitted, updateAdmitted, applyRemote, sync,
      heldBack: validators == null ? undefined : heldBackBudget(validators)
    })
    this.initiator = createSyncInitiator({
      libp2p: components.libp2p, metrics, docs, inflight: this.inflight, shutdown: this.shutdown.signal, syncTimeoutMs,
      syncChunkBytes, maxSyncBytes, confirmTimeoutMs, admitted, updateAdmitted, applyRemote, assertRunning: () => { this.assertRunning() }
    })
    this.catchUp = createCatchUp({ pubsub: components.pubsub, libp2p: components.libp2p, docs, syncConcurrency, sync })
    const serve = createSyncResponder({
      metrics, docs, shutdown: this.shutdown.signal, syncTimeoutMs, syncChunkBytes, maxSyncBytes, admitted, updateAdmitted, applyRemote,
      stored: async (name) => await this.stored(name)
    })
    components.libp2p.addEventListener('peer:disconnect', this.catchUp.onPeerDisconnect)
    components.pubsub.addEventListener('message', this.gossip.onMessage)
    components.pubsub.addEventListener('subscription-change', this.catchUp.onSubscriptionChange)
    this.handling = components.libp2p.handle(SYNC_PROTOCOL, async (stream, connection) => serve(stream, connection), {
      maxInboundStreams: 64,
      maxOutboundStreams: 64
    })
    this.handling.catch(err => { log.error('cannot handle %s: %e', SYNC_PROTOCOL, err) })
    if (interval > 0) {
      this.compactTimer = setInterval(() => { this.flusher.compactDirty() }, interval)
      this.compactTimer.unref?.()
    }
  }

  get (name: string): Y.Doc | undefined {
    return this.docs.get(name)?.doc
  }

  names (): string[] {
    return [...new Set([...this.docs.keys(), ...this.opening.keys()])]
  }

  async open (name: string, options: OpenOptions = {}): Promise<Y.Doc> {
    assertDocName(name)
    this.assertRunning()
    const follow = options.follow !== false
    const open = this.docs.get(name)
    if (open != null && (open.followed || !follow)) {
      return open.doc
    }
    let doc = open?.doc
    if (doc == null) {
      let pending = this.opening.get(name)
      if (pending == null) {
        pending = this.load(name).finally(() => this.opening.delete(name))
        this.opening.set(name, pending)
      }
      doc = await pending
    }
    if (follow) this.follow(name)
    if (options.offline !== true) {
      const caughtUp = this.catchUp.catchUp(name, options)
      if (options.catchUpWaitMs == null) await caughtUp
      else await waitAtMost(caughtUp, options.catchUpWaitMs, name)
      // the wait swallows the catch-up's failure, not the caller's abort
      options.signal?.throwIfAborted()
    } else {
      this.catchUp.pushStored(name)
    }
    return doc
  }

  /** Subscribes an open doc's topic (once). */
  private follow (name: string): void {
    const entry = this.docs.get(name)
    if (entry == null || entry.followed) return
    this.components.pubsub.subscribe(entry.topic)
    entry.followed = true
  }

  private async load (name: string): Promise<Y.Doc> {
    await this.handling
    const doc = new Y.Doc()
    const persistence = new DocPersistence(this.components.datastore, name)
    const stored = await persistence.load()
    if (stored != null) {
      Y.applyUpdate(doc, stored, ORIGIN_STORAGE)
      dropDeletesAhead(doc)
    }
    this.assertRunning()
    const entry: OpenDoc = openDocEntry({
      name,
      topic: docTopic(name),
      doc,
      persistence,
      published: stored != null ? 1 : 0,
      rate: rateLimiter(this.init.gossipRate ?? { ratePerSecond: DEFAULT_GOSSIP_RATE_PER_SECOND, burst: DEFAULT_GOSSIP_BURST }),
      onUpdate: (update, origin) => { this.flusher.onDocUpdate(entry, update, origin) }
    })
    doc.on('update', entry.onUpdate)
    this.docs.set(name, entry)
    const pubsub = this.components.pubsub
    if (pubsub.topicValidators != null) {
      entry.unguard = guardTopic({ topicValidators: pubsub.topicValidators, score: pubsub.score, opts: pubsub.opts }, entry.topic,
        async (msg, relay) => this.gossip.validateGossip(entry, msg, relay), { onReplayed: () => { this.metrics.gossipReplayed++ } })
    }
    log('opened %s (%d stored bytes)', name, stored?.length ?? 0)
    return doc
  }

  async storedState (name: string): Promise<Uint8Array | undefined> {
    const open = this.docs.get(name)
    if (open != null) return Y.encodeStateAsUpdate(open.doc)
    return await this.stored(name)
  }

  /** The stored state of a doc that is not open; undefined for a name no doc of this store ever had (or a bad one). */
  private async stored (name: string): Promise<Uint8Array | undefined> {
    try {
      assertDocName(name)
    } catch {
      return undefined
    }
    return await new DocPersistence(this.components.datastore, name).load()
  }

  sync (name: string, peer: PeerId | string, options: SyncOptions = {}): Promise<SyncResult> {
    return this.initiator.sync(name, peer, options)
  }

  confirm (name: string, options: ConfirmOptions = {}): Promise<ConfirmResult> {
    return this.initiator.confirm(name, options)
  }

  async flush (name?: string): Promise<void> {
    const entries = name == null ? [...this.docs.values()] : [this.docs.get(name)].filter(e => e != null)
    await Promise.all(entries.map(async entry => {
      // a flush may be scheduled for the next tick: run it now
      if (entry.flushScheduled) {
        this.flusher.scheduleFlush(entry, entry.pushSource)
      }
      await entry.chain
    }))
  }

  async compact (name: string): Promise<void> {
    const entry = this.docs.get(name)
    if (entry == null) {
      throw new DocNotOpenError(`${name} is not open`)
    }
    await this.flush(name)
    entry.chain = entry.chain.then(async () => this.flusher.compactNow(entry))
    await entry.chain
  }

  async close (name: string): Promise<void> {
    // a doc being opened is closed once its load is done (the open that loaded it gets the doc, closed)
    await this.opening.get(name)?.catch(() => {})
    const entry = this.docs.get(name)
    if (entry == null) return
    await this.flush(name)
    if (entry.dirtySinceCompaction || entry.persistence.pending > 1) {
      await this.flusher.compactNow(entry)
    }
    entry.doc.off('update', entry.onUpdate)
    entry.unguard?.()
    this.docs.delete(name)
    if (entry.followed) {
      try {
        this.components.pubsub.unsubscribe(entry.topic)
      } catch (err) {
        log('unsubscribe %s failed: %e', entry.topic, err)
      }
    }
    entry.doc.destroy()
  }

  async stop (): Promise<void> {
    if (this.stopped) return
    this.stopped = true
    if (this.compactTimer != null) clearInterval(this.compactTimer)
    this.components.pubsub.removeEventListener('message', this.gossip.onMessage)
    this.components.pubsub.removeEventListener('subscription-change', this.catchUp.onSubscriptionChange)
    this.components.libp2p.removeEventListener('peer:disconnect', this.catchUp.onPeerDisconnect)
    await Promise.all([...this.opening.values()].map(async p => p.catch(() => {})))
    this.shutdown.abort(new DocStoreStoppedError('doc store stopped'))
    await Promise.allSettled([...this.inflight.values()].map(async i => i.result))
    for (const name of [...this.docs.keys()]) {
      await this.close(name)
    }
    await this.handling.catch(() => {})
    try {
      await this.components.libp2p.unhandle(SYNC_PROTOCOL)
    } catch (err) {
      log('unhandle failed: %e', err)
    }
  }

  private assertRunning (): void {
    if (this.stopped) {
      throw new DocStoreStoppedError('doc store stopped')
    }
  }
}

/** Creates a doc store on a node's gossipsub, libp2p and datastore. Call `stop()` before stopping the node. */
export function createDocStore (components: DocStoreComponents, init: DocStoreInit = {}): DocStore {
  return new DefaultDocStore(components, init)
}

/** Waits for a catch-up at most `ms`; one that goes on afterwards only logs its failure. */
async function waitAtMost (caughtUp: Promise<void>, ms: number, name: string): Promise<void> {
  const background = caughtUp.catch((err: Error) => { log('catch-up of %s failed: %e', name, err) })
  // the timeout's rejection is the wait ending, not an error
  await raceSignal(background, timeoutSignal(ms)).catch(() => {})
}
