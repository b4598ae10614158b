import { logger } from '@libp2p/logger'
import { peerIdFromString } from '@libp2p/peer-id'
import * as Y from 'yjs'
import {
  DEFAULT_COMPACT_EVERY, DEFAULT_COMPACT_INTERVAL_MS, DEFAULT_CONFIRM_TIMEOUT_MS, DEFAULT_MAX_SYNC_BYTES,
  DEFAULT_GOSSIP_BURST, DEFAULT_GOSSIP_RATE_PER_SECOND, DEFAULT_MAX_UPDATE_BYTES, DEFAULT_PENDING_PULL_INTERVAL_MS,
  DEFAULT_SYNC_CHUNK_BYTES, DEFAULT_SYNC_CONCURRENCY, DEFAULT_SYNC_TIMEOUT_MS, GOSSIP_UPDATE_VERSION, SYNC_PROTOCOL
} from './constants.js'
import { DocNotFoundError, DocNotOpenError, DocStoreStoppedError, PeerNotAdmittedError } from './errors.js'
import { FrameStream } from './frame-stream.js'
import { TopicValidatorResult, guardTopic, rateLimiter } from './gossip-guard.js'
import { createMetrics } from './metrics.js'
import { assertDocName, docNameOfTopic, docTopic } from './names.js'
import { DocPersistence } from './persistence.js'
import { answerSync, initiateSync } from './sync.js'
import { FrameType } from './sync-frames.js'
import { applyGuarded, heal } from './update-guard.js'
import { countReceived, countSent } from '../protocol/counters.js'
import type { TrafficCounters } from '../protocol/counters.js'
import type { GuardedPubSub, RateLimitInit, RateLimiter } from './gossip-guard.js'
import type { DocStoreMetrics } from './metrics.js'
import type { SyncResult } from './sync.js'
import type { DocGuards } from './update-guard.js'
import type { GossipSub, Message, SubscriptionChangeData } from '@libp2p/gossipsub'
import type { AbortOptions, Connection, Libp2p, PeerId, Stream } from '@libp2p/interface'
import type { Datastore } from 'interface-datastore'

const log = logger('jobmesh:crdt')

/** Transaction origins. Local writes use any other origin (or none) and are persisted and broadcast. */
export const ORIGIN_STORAGE = Symbol('jobmesh:crdt:storage')
/** A gossiped update: persisted, not re-broadcast (gossipsub forwards it). */
export const ORIGIN_GOSSIP = Symbol('jobmesh:crdt:gossip')
/** A diff pulled from a sync responder: persisted, not re-broadcast (the network has it). */
export const ORIGIN_SYNC_PULL = Symbol('jobmesh:crdt:sync-pull')
/** A diff pushed by a sync initiator (a joiner's offline writes): persisted and re-broadcast. */
export const ORIGIN_SYNC_PUSH = Symbol('jobmesh:crdt:sync-push')

/** What the store needs from the node; a {@link JobmeshNode} has all of it. */
export interface DocStoreComponents {
  peerId: PeerId
  datastore: Datastore
  pubsub: Pick<GossipSub, 'subscribe' | 'unsubscribe' | 'publish' | 'getSubscribers' | 'addEventListener' | 'removeEventListener'> &
  Partial<GuardedPubSub>
  libp2p: Pick<Libp2p, 'handle' | 'unhandle' | 'dialProtocol' | 'getPeers' | 'addEventListener' | 'removeEventListener'>
  /** Counts published and received updates (benches, profiles). */
  counters?: TrafficCounters
}

export interface DocStoreInit {
  /** Largest update published on gossipsub; bigger ones go over sync streams. Default {@link DEFAULT_MAX_UPDATE_BYTES}. */
  maxUpdateBytes?: number
  /** Default {@link DEFAULT_SYNC_TIMEOUT_MS}. */
  syncTimeoutMs?: number
  /** Default {@link DEFAULT_SYNC_CHUNK_BYTES}. */
  syncChunkBytes?: number
  /** Default {@link DEFAULT_MAX_SYNC_BYTES}. */
  maxSyncBytes?: number
  /** Default {@link DEFAULT_SYNC_CONCURRENCY}. */
  syncConcurrency?: number
  /** Default {@link DEFAULT_COMPACT_EVERY}. */
  compactEvery?: number
  /** Default {@link DEFAULT_COMPACT_INTERVAL_MS}; 0 disables the timer. */
  compactIntervalMs?: number
  /** Default timeout of each exchange of `confirm`. Default {@link DEFAULT_CONFIRM_TIMEOUT_MS}. */
  confirmTimeoutMs?: number
  /** Least time between two pulls from one peer for missing dependencies. Default {@link DEFAULT_PENDING_PULL_INTERVAL_MS}. */
  pendingPullIntervalMs?: number
  /**
   * Which peers may write (gossip) and sync a doc. A gossiped update from a peer not admitted is rejected before it
   * is applied or forwarded; sync exchanges with it are refused both ways. Default: every peer.
   */
  admit?(peerId: string, docName: string): boolean | Promise<boolean>
  /** Who may change which keys of a doc (docs/crdt.md, Ownership). Default: no guard. */
  guards?: DocGuards
  /** Per-peer rate of gossip messages on each doc topic. Default {@link DEFAULT_GOSSIP_RATE_PER_SECOND} / {@link DEFAULT_GOSSIP_BURST}. */
  gossipRate?: RateLimitInit
}

export interface OpenOptions extends AbortOptions {
  /** Skip the catch-up from connected peers (it still happens when peers subscribe). */
  offline?: boolean
}

export interface SyncOptions extends AbortOptions {
  /** Also send our diff (default true). A pull only receives. */
  push?: boolean
  /** Never join an exchange that is already running: wait for it, then run a new one (default false). */
  fresh?: boolean
  /** Timeout of this exchange (default: the store's `syncTimeoutMs`). */
  timeoutMs?: number
}

export interface ConfirmOptions extends AbortOptions {
  /** Timeout of each exchange. Default {@link DEFAULT_CONFIRM_TIMEOUT_MS}. */
  timeoutMs?: number
}

/** Yjs docs shared over gossipsub, caught up over `/jobmesh/sync/1.0.0`, persisted in the datastore. */
export interface DocStore {
  /**
   * Opens a doc (or returns the open one): loads its stored state, subscribes to `/jobmesh/1/doc/<name>`, and
   * catches up from connected peers (one first, then the rest in parallel) before resolving.
   */
  open(name: string, options?: OpenOptions): Promise<Y.Doc>
  /** The open doc, or undefined. */
  get(name: string): Y.Doc | undefined
  /** Flushes, compacts and closes a doc; it stays in the datastore. */
  close(name: string): Promise<void>
  /** Names of the open docs. */
  names(): string[]
  /**
   * One sync exchange with a peer: both sides send what the other lacks (state vector -> diff).
   *
   * @throws DocNotOpenError if the doc is not open here; DocNotFoundError if it is not open there
   */
  sync(name: string, peer: PeerId | string, options?: SyncOptions): Promise<SyncResult>
  /**
   * A fresh exchange (both ways) with every connected peer that has the doc open, in parallel. When it resolves,
   * every such peer has everything this doc had at the call, and this doc has everything they had when they
   * answered: a write followed by `confirm` cannot be missed by a connected peer (leases use it to settle).
   * Failures and timeouts are skipped (best effort). Resolves with the number of peers exchanged with.
   */
  confirm(name: string, options?: ConfirmOptions): Promise<number>
  /** Waits until every update made so far is persisted and published. */
  flush(name?: string): Promise<void>
  /** Merges a doc's stored updates into one snapshot now. */
  compact(name: string): Promise<void>
  /** Closes every doc (flush + compaction) and stops serving sync. */
  stop(): Promise<void>
  readonly metrics: DocStoreMetrics
}

interface OpenDoc {
  name: string
  topic: string
  doc: Y.Doc
  persistence: DocPersistence
  toPublish: Uint8Array[]
  /** Peer a pushed diff came from: not pushed back to it when too big for gossip. */
  pushSource?: string
  toPersist: Uint8Array[]
  flushScheduled: boolean
  /** Serial chain of datastore writes and publishes. */
  chain: Promise<void>
  dirtySinceCompaction: boolean
  /** Peers a full exchange (both directions) completed with on their current connection. */
  synced: Set<string>
  /** Exchanges this peer is answering, per initiating peer. */
  serving: Map<string, Promise<void>>
  /** Last pull per peer started because a gossiped update left the doc with missing dependencies. */
  pendingPulls: Map<string, number>
  rate: RateLimiter
  /** Set when the doc topic has a gossipsub validator (it applies the updates; 'message' events are only counted). */
  unguard?: () => void
  onUpdate(update: Uint8Array, origin: unknown): void
}

/** How a remote update went: applied, applied with forbidden changes (undone), or refused by Yjs. */
type ApplyResult = 'applied' | 'forbidden' | 'failed'

class DefaultDocStore implements DocStore {
  readonly metrics = createMetrics()
  private readonly components: DocStoreComponents
  private readonly docs = new Map<string, OpenDoc>()
  private readonly opening = new Map<string, Promise<Y.Doc>>()
  private readonly inflight = new Map<string, { push: boolean, result: Promise<SyncResult> }>()
  private readonly shutdown = new AbortController()
  private readonly handling: Promise<void>
  private readonly compactTimer?: ReturnType<typeof setInterval>
  private readonly maxUpdateBytes: number
  private readonly syncTimeoutMs: number
  private readonly syncChunkBytes: number
  private readonly maxSyncBytes: number
  private readonly syncConcurrency: number
  private readonly compactEvery: number
  private readonly confirmTimeoutMs: number
  private readonly pendingPullIntervalMs: number
  private readonly init: DocStoreInit
  private stopped = false

  constructor (components: DocStoreComponents, init: DocStoreInit) {
    this.components = components
    this.init = init
    this.maxUpdateBytes = init.maxUpdateBytes ?? DEFAULT_MAX_UPDATE_BYTES
    this.syncTimeoutMs = init.syncTimeoutMs ?? DEFAULT_SYNC_TIMEOUT_MS
    this.syncChunkBytes = init.syncChunkBytes ?? DEFAULT_SYNC_CHUNK_BYTES
    this.maxSyncBytes = init.maxSyncBytes ?? DEFAULT_MAX_SYNC_BYTES
    this.syncConcurrency = init.syncConcurrency ?? DEFAULT_SYNC_CONCURRENCY
    this.compactEvery = init.compactEvery ?? DEFAULT_COMPACT_EVERY
    this.confirmTimeoutMs = init.confirmTimeoutMs ?? DEFAULT_CONFIRM_TIMEOUT_MS
    this.pendingPullIntervalMs = init.pendingPullIntervalMs ?? DEFAULT_PENDING_PULL_INTERVAL_MS
    const interval = init.compactIntervalMs ?? DEFAULT_COMPACT_INTERVAL_MS
    this.onMessage = this.onMessage.bind(this)
    this.onSubscriptionChange = this.onSubscriptionChange.bind(this)
    this.onPeerDisconnect = this.onPeerDisconnect.bind(this)
    components.libp2p.addEventListener('peer:disconnect', this.onPeerDisconnect)
    components.pubsub.addEventListener('message', this.onMessage)
    components.pubsub.addEventListener('subscription-change', this.onSubscriptionChange)
    this.handling = components.libp2p.handle(SYNC_PROTOCOL, async (stream, connection) => this.serve(stream, connection), {
      maxInboundStreams: 64,
      maxOutboundStreams: 64
    })
    this.handling.catch(err => { log.error('cannot handle %s: %e', SYNC_PROTOCOL, err) })
    if (interval > 0) {
      this.compactTimer = setInterval(() => { this.compactDirty() }, interval)
      this.compactTimer.unref?.()
    }
  }

  get (name: string): Y.Doc | undefined {
    return this.docs.get(name)?.doc
  }

  names (): string[] {
    return [...this.docs.keys()]
  }

  async open (name: string, options: OpenOptions = {}): Promise<Y.Doc> {
    assertDocName(name)
    this.assertRunning()
    const open = this.docs.get(name)
    if (open != null) {
      return open.doc
    }
    let pending = this.opening.get(name)
    if (pending == null) {
      pending = this.load(name).finally(() => this.opening.delete(name))
      this.opening.set(name, pending)
    }
    const doc = await pending
    if (options.offline !== true) {
      await this.catchUp(name, options)
    }
    return doc
  }

  private async load (name: string): Promise<Y.Doc> {
    await this.handling
    const doc = new Y.Doc()
    const persistence = new DocPersistence(this.components.datastore, name)
    const stored = await persistence.load()
    if (stored != null) {
      Y.applyUpdate(doc, stored, ORIGIN_STORAGE)
    }
    this.assertRunning()
    const entry: OpenDoc = {
      name,
      topic: docTopic(name),
      doc,
      persistence,
      toPublish: [],
      toPersist: [],
      flushScheduled: false,
      chain: Promise.resolve(),
      dirtySinceCompaction: false,
      synced: new Set(),
      pendingPulls: new Map(),
      serving: new Map(),
      rate: rateLimiter(this.init.gossipRate ?? { ratePerSecond: DEFAULT_GOSSIP_RATE_PER_SECOND, burst: DEFAULT_GOSSIP_BURST }),
      onUpdate: (update, origin) => { this.onDocUpdate(entry, update, origin) }
    }
    doc.on('update', entry.onUpdate)
    this.docs.set(name, entry)
    const pubsub = this.components.pubsub
    if (pubsub.topicValidators != null) {
      entry.unguard = guardTopic({ topicValidators: pubsub.topicValidators, score: pubsub.score }, entry.topic,
        async msg => this.validateGossip(entry, msg))
    }
    this.components.pubsub.subscribe(entry.topic)
    log('opened %s (%d stored bytes)', name, stored?.length ?? 0)
    return doc
  }

  /** Sync with one connected peer (subscribers of the topic first), then with the rest in parallel. */
  private async catchUp (name: string, options: AbortOptions): Promise<void> {
    const entry = this.docs.get(name)
    if (entry == null) return
    const subscribers = new Set(this.components.pubsub.getSubscribers(entry.topic).map(String))
    const peers = this.components.libp2p.getPeers()
      .sort((a, b) => Number(subscribers.has(b.toString())) - Number(subscribers.has(a.toString())))
    if (peers.length === 0) return
    const attempt = async (peer: PeerId): Promise<boolean> => {
      try {
        await this.sync(name, peer, { ...options, push: true })
        return true
      } catch (err) {
        if ((err as Error).name !== DocNotFoundError.name) {
          log('catch-up of %s from %p failed: %e', name, peer, err)
        }
        return false
      }
    }
    // the first peer that has the doc gives us nearly everything; the others then send small diffs
    let i = 0
    while (i < peers.length && !(await attempt(peers[i++]))) {
      options.signal?.throwIfAborted()
    }
    const rest = peers.slice(i)
    const workers = Array.from({ length: Math.min(this.syncConcurrency, rest.length) }, async () => {
      for (let p = rest.shift(); p != null; p = rest.shift()) {
        options.signal?.throwIfAborted()
        await attempt(p)
      }
    })
    await Promise.all(workers)
  }

  async sync (name: string, peer: PeerId | string, options: SyncOptions = {}): Promise<SyncResult> {
    this.assertRunning()
    const entry = this.docs.get(name)
    if (entry == null) {
      throw new DocNotOpenError(`${name} is not open`)
    }
    const peerId = typeof peer === 'string' ? peerIdFromString(peer) : peer
    if (!(await this.admitted(peerId.toString(), name))) {
      this.metrics.syncRefused++
      throw new PeerNotAdmittedError(`${peerId.toString()} may not sync ${name}`)
    }
    const push = options.push ?? true
    // one exchange per (doc, peer) at a time: a pull joins a running exchange; a push waits for a running pull
    const key = `${name}\n${peerId.toString()}`
    const running = this.inflight.get(key)
    if (running != null && options.fresh !== true && (!push || running.push)) {
      return running.result
    }
    const previous = running?.result.catch(() => {})
    const result = (async () => {
      await previous
      return this.runSync(entry, peerId, push, options)
    })().finally(() => {
      if (this.inflight.get(key)?.result === result) this.inflight.delete(key)
    })
    this.inflight.set(key, { push, result })
    return result
  }

  async confirm (name: string, options: ConfirmOptions = {}): Promise<number> {
    this.assertRunning()
    if (!this.docs.has(name)) {
      throw new DocNotOpenError(`${name} is not open`)
    }
    const timeoutMs = options.timeoutMs ?? this.confirmTimeoutMs
    const results = await Promise.allSettled(this.components.libp2p.getPeers().map(async peer =>
      this.sync(name, peer, { push: true, fresh: true, timeoutMs, signal: options.signal })))
    options.signal?.throwIfAborted()
    return results.filter(r => r.status === 'fulfilled').length
  }

  private async runSync (entry: OpenDoc, peerId: PeerId, push: boolean, options: SyncOptions): Promise<SyncResult> {
    const signal = AbortSignal.any([
      this.shutdown.signal,
      AbortSignal.timeout(options.timeoutMs ?? this.syncTimeoutMs),
      ...(options.signal != null ? [options.signal] : [])
    ])
    let frames: FrameStream | undefined
    const onAbort = (): void => { frames?.abort(signal.reason instanceof Error ? signal.reason : new Error('sync aborted')) }
    signal.addEventListener('abort', onAbort, { once: true })
    try {
      const stream = await this.components.libp2p.dialProtocol(peerId, SYNC_PROTOCOL, { signal })
      frames = new FrameStream(stream, { chunkBytes: this.syncChunkBytes, maxDiffBytes: this.maxSyncBytes })
      signal.throwIfAborted()
      const result = await initiateSync(frames, entry.name, entry.doc, push,
        update => this.applyRemote(entry, update, ORIGIN_SYNC_PULL) !== 'failed', { signal })
      this.metrics.syncCompleted++
      if (push) entry.synced.add(peerId.toString())
      this.metrics.syncBytesIn += result.received
      this.metrics.syncBytesOut += result.sent
      log('synced %s with %p: received %d, sent %d bytes', entry.name, peerId, result.received, result.sent)
      return result
    } catch (err) {
      if ((err as Error).name === DocNotFoundError.name) {
        this.metrics.syncNotFound++
      } else {
        this.metrics.syncFailed++
      }
      frames?.abort(err as Error)
      throw err
    } finally {
      signal.removeEventListener('abort', onAbort)
    }
  }

  private async serve (stream: Stream, connection: Connection): Promise<void> {
    const signal = AbortSignal.any([this.shutdown.signal, AbortSignal.timeout(this.syncTimeoutMs)])
    const frames = new FrameStream(stream, { chunkBytes: this.syncChunkBytes, maxDiffBytes: this.maxSyncBytes })
    const onAbort = (): void => { frames.abort(signal.reason instanceof Error ? signal.reason : new Error('sync aborted')) }
    signal.addEventListener('abort', onAbort, { once: true })
    try {
      const request = await frames.read()
      if (request.type !== FrameType.REQUEST) {
        throw new Error(`expected REQUEST, got frame type ${request.type}`)
      }
      const entry = this.docs.get(request.name)
      if (entry == null) {
        await frames.write({ type: FrameType.NOT_OPEN }, { signal })
        await frames.close({ signal })
        return
      }
      const from = connection.remotePeer.toString()
      // a peer not admitted may read the doc (a DApp following a job), never write it: its pushed diff is dropped
      const admitted = await this.admitted(from, request.name)
      const answering = this.answer(entry, frames, request, from, signal, admitted)
      const done = answering.then(() => {}, () => {})
      entry.serving.set(from, done)
      void done.finally(() => { if (entry.serving.get(from) === done) entry.serving.delete(from) })
      await answering
    } catch (err) {
      this.metrics.syncFailed++
      log('serving sync to %p failed: %e', connection.remotePeer, err)
      frames.abort(err as Error)
    } finally {
      signal.removeEventListener('abort', onAbort)
    }
  }

  private async answer (entry: OpenDoc, frames: FrameStream, request: { stateVector: Uint8Array, push: boolean },
    from: string, signal: AbortSignal, admitted: boolean): Promise<void> {
    const result = await answerSync(frames, entry.doc, request.stateVector, request.push, update => {
      if (!admitted) {
        this.metrics.syncRefused++
        log('dropped a diff of %d bytes pushed by %s, not admitted to %s', update.length, from, entry.name)
        return true
      }
      entry.pushSource = from
      try {
        return this.applyRemote(entry, update, ORIGIN_SYNC_PUSH) !== 'failed'
      } finally {
        entry.pushSource = undefined
      }
    }, { signal })
    this.metrics.syncServed++
    if (request.push && admitted) entry.synced.add(from)
    this.metrics.syncBytesIn += result.received
    this.metrics.syncBytesOut += result.sent
  }

  /**
   * Applies a remote update; counts it, never throws. Updates that are not re-broadcast (gossip, pulled diffs) are
   * applied with the store's update listener detached and persisted as received: Yjs then does not re-encode what
   * it integrated (for a 100 000-MicroJob catch-up that re-encoding is about a third of the apply time).
   */
  private applyRemote (entry: OpenDoc, update: Uint8Array, origin: symbol): ApplyResult {
    const guard = this.init.guards?.(entry.name)
    entry.doc.off('update', entry.onUpdate)
    let attached = false
    try {
      const forbidden = guard == null ? [] : applyGuarded(entry.doc, update, origin, guard)
      if (guard == null) Y.applyUpdate(entry.doc, update, origin)
      this.metrics.updatesApplied++
      entry.doc.on('update', entry.onUpdate)
      attached = true
      if (forbidden.length === 0) {
        // persisted as received; a pushed diff is also re-broadcast
        this.onDocUpdate(entry, update, origin)
        return 'applied'
      }
      // never re-broadcast an update with forbidden changes; undo them with a local write every peer receives
      this.onDocUpdate(entry, update, ORIGIN_SYNC_PULL)
      heal(entry.doc, forbidden)
      this.metrics.guardViolations += forbidden.length
      log('undid %d forbidden changes of %s (%s)', forbidden.length, entry.name,
        forbidden.slice(0, 4).map(c => `${c.action} ${c.map}/${c.key}`).join(', '))
      return 'forbidden'
    } catch (err) {
      this.metrics.updatesRejected++
      log('rejected an update for %s: %e', entry.name, err)
      return 'failed'
    } finally {
      if (!attached) entry.doc.on('update', entry.onUpdate)
    }
  }

  private async admitted (peer: string, name: string): Promise<boolean> {
    if (this.init.admit == null || peer === this.components.peerId.toString()) return true
    try {
      return await this.init.admit(peer, name)
    } catch (err) {
      log('admission of %s to %s failed: %e', peer, name, err)
      return false
    }
  }

  /**
   * The gossipsub validator of a doc topic: runs before a message is delivered or forwarded. Cheap checks first
   * (rate, size, framing, Yjs decoding), then admission of the sender, then the update is applied through the doc's
   * guard. Anything invalid is rejected: not applied, not forwarded, and the sender's peer score falls.
   */
  private async validateGossip (entry: OpenDoc, msg: Message): Promise<TopicValidatorResult> {
    const reject = (counter?: 'gossipOversized' | 'gossipMalformed' | 'gossipUnauthorized'): TopicValidatorResult => {
      this.metrics.gossipRejected++
      if (counter != null) this.metrics[counter]++
      return TopicValidatorResult.Reject
    }
    const data = msg.data
    countReceived(this.components.counters, 'doc', data.length, msg.type === 'signed')
    if (msg.type !== 'signed') return reject('gossipMalformed')
    const from = msg.from.toString()
    const rate = entry.rate.take(from)
    if (rate !== 'ok') {
      this.metrics.gossipRateLimited++
      return rate === 'abusive' ? reject() : TopicValidatorResult.Ignore
    }
    if (data.length > this.maxUpdateBytes + 1) return reject('gossipOversized')
    if (data.length < 2 || data[0] !== GOSSIP_UPDATE_VERSION) {
      this.metrics.updatesRejected++
      return reject('gossipMalformed')
    }
    const update = data.subarray(1)
    try {
      // parse fully before touching the doc, so garbage never reaches the store
      Y.decodeUpdate(update)
    } catch {
      this.metrics.updatesRejected++
      return reject('gossipMalformed')
    }
    if (!(await this.admitted(from, entry.name))) return reject('gossipUnauthorized')
    if (this.docs.get(entry.name) !== entry) return TopicValidatorResult.Ignore
    const result = this.applyRemote(entry, update, ORIGIN_GOSSIP)
    if (result === 'failed') return reject('gossipMalformed')
    if (result === 'forbidden') return reject()
    this.pullIfPending(entry, msg.from)
    return TopicValidatorResult.Accept
  }

  private onMessage (evt: CustomEvent<Message>): void {
    const msg = evt.detail
    const name = docNameOfTopic(msg.topic)
    if (name == null) return
    const entry = this.docs.get(name)
    // with a topic validator the update was checked and applied before gossipsub delivered it
    if (entry == null || entry.unguard != null) return
    const data = msg.data
    countReceived(this.components.counters, 'doc', data.length, msg.type === 'signed')
    if (data.length < 2 || data[0] !== GOSSIP_UPDATE_VERSION) {
      this.metrics.updatesRejected++
      return
    }
    const update = data.subarray(1)
    try {
      // parse fully before touching the doc, so garbage never reaches the store
      Y.decodeUpdate(update)
    } catch {
      this.metrics.updatesRejected++
      return
    }
    if (this.applyRemote(entry, update, ORIGIN_GOSSIP) === 'applied' && msg.type === 'signed') {
      this.pullIfPending(entry, msg.from)
    }
  }

  /**
   * Gossip is not replayed: an update published before we subscribed (or before its publisher saw our
   * subscription) never arrives, and Yjs then holds every later update that depends on it as pending. When that
   * happens, pull a diff from the peer that published the update (at most once per interval per peer).
   */
  private pullIfPending (entry: OpenDoc, from: PeerId): void {
    const store = entry.doc.store
    if (store.pendingStructs == null && store.pendingDs == null) return
    const peer = from.toString()
    const now = Date.now()
    if (now - (entry.pendingPulls.get(peer) ?? -Infinity) < this.pendingPullIntervalMs) return
    entry.pendingPulls.set(peer, now)
    this.metrics.pendingPulls++
    log('%s has missing dependencies after an update from %p: pulling', entry.name, from)
    this.sync(entry.name, from, { push: false }).catch(err => {
      log('pull of %s from %p failed: %e', entry.name, from, err)
    })
  }

  private onSubscriptionChange (evt: CustomEvent<SubscriptionChangeData>): void {
    const { peerId, subscriptions } = evt.detail
    for (const { topic, subscribe } of subscriptions) {
      const name = docNameOfTopic(topic)
      if (!subscribe || name == null) continue
      const entry = this.docs.get(name)
      if (entry == null) continue
      this.exchangeWithSubscriber(entry, peerId).catch(err => {
        if ((err as Error).name !== DocNotFoundError.name) {
          log('exchange of %s with %p failed: %e', name, peerId, err)
        }
      })
    }
  }

  /**
   * A peer subscribed to an open doc's topic (a newcomer, or a peer that reconnected): gossip is not replayed, so
   * what each side wrote before seeing the other's subscription must be exchanged. First a pull (what the peer
   * has); then, unless the peer's own catch-up with us completed meanwhile (it usually runs right after its
   * subscription and carries all of our state), a push of our diff. The push is deferred because a newcomer still
   * catching up has an empty state vector: pushing at once would send it the whole doc a second time.
   * Even after a completed exchange the push runs (a fresh one, small: state vectors and what changed): what we
   * wrote between that exchange and gossipsub learning of this subscription was published to nobody.
   */
  private async exchangeWithSubscriber (entry: OpenDoc, peerId: PeerId): Promise<void> {
    const peer = peerId.toString()
    if (!entry.synced.has(peer)) {
      await this.sync(entry.name, peerId, { push: false })
    }
    await entry.serving.get(peer)
    if (this.docs.get(entry.name) !== entry) return
    await this.sync(entry.name, peerId, { push: true, fresh: true })
  }

  private onPeerDisconnect (evt: CustomEvent<PeerId>): void {
    const peer = evt.detail.toString()
    for (const entry of this.docs.values()) entry.synced.delete(peer)
  }

  private onDocUpdate (entry: OpenDoc, update: Uint8Array, origin: unknown): void {
    if (origin === ORIGIN_STORAGE) return
    entry.toPersist.push(update)
    if (origin !== ORIGIN_GOSSIP && origin !== ORIGIN_SYNC_PULL) {
      entry.toPublish.push(update)
    }
    if (!entry.flushScheduled) {
      entry.flushScheduled = true
      const pushSource = entry.pushSource
      setImmediate(() => { this.scheduleFlush(entry, pushSource) })
    }
  }

  /** One tick's updates: merged, persisted, published (or pushed over sync when too big). */
  private scheduleFlush (entry: OpenDoc, pushSource: string | undefined): void {
    entry.flushScheduled = false
    const toPersist = entry.toPersist.splice(0)
    const toPublish = entry.toPublish.splice(0)
    entry.chain = entry.chain.then(async () => {
      if (toPersist.length > 0) {
        await entry.persistence.append(toPersist.length === 1 ? toPersist[0] : Y.mergeUpdates(toPersist))
        this.metrics.updatesPersisted++
        entry.dirtySinceCompaction = true
      }
      if (toPublish.length > 0) {
        const update = toPublish.length === 1 ? toPublish[0] : Y.mergeUpdates(toPublish)
        await this.publish(entry, update, pushSource)
      }
      if (entry.persistence.pending >= this.compactEvery) {
        await this.compactNow(entry)
      }
    }).catch(err => { log.error('flush of %s failed: %e', entry.name, err) })
  }

  private async publish (entry: OpenDoc, update: Uint8Array, pushSource: string | undefined): Promise<void> {
    if (update.length + 1 <= this.maxUpdateBytes) {
      const data = new Uint8Array(update.length + 1)
      data[0] = GOSSIP_UPDATE_VERSION
      data.set(update, 1)
      try {
        await this.components.pubsub.publish(entry.topic, data)
        this.metrics.updatesPublished++
        countSent(this.components.counters, 'doc', data.length)
      } catch (err) {
        log('publish on %s failed: %e', entry.topic, err)
      }
      return
    }
    this.metrics.updatesOversized++
    const targets = this.components.pubsub.getSubscribers(entry.topic).filter(p => p.toString() !== pushSource)
    log('update of %d bytes on %s goes over sync to %d peers', update.length, entry.name, targets.length)
    for (const peer of targets) {
      // fresh: an exchange already running with that peer computed its diff before this update existed; joining it
      // would push nothing of this update (the peer then lacked it until some later exchange: a whole MacroJob's
      // results missing for about a lease, the 8-peer no-op stall of issue #10)
      this.sync(entry.name, peer, { push: true, fresh: true }).catch(err => {
        log('push of %s to %p failed: %e', entry.name, peer, err)
      })
    }
  }

  private async compactNow (entry: OpenDoc): Promise<void> {
    await entry.persistence.compact(Y.encodeStateAsUpdate(entry.doc))
    entry.dirtySinceCompaction = false
    this.metrics.compactions++
  }

  private compactDirty (): void {
    for (const entry of this.docs.values()) {
      if (entry.dirtySinceCompaction) {
        entry.chain = entry.chain.then(async () => this.compactNow(entry))
          .catch(err => { log.error('compaction of %s failed: %e', entry.name, err) })
      }
    }
  }

  async flush (name?: string): Promise<void> {
    const entries = name == null ? [...this.docs.values()] : [this.docs.get(name)].filter(e => e != null)
    await Promise.all(entries.map(async entry => {
      // a flush may be scheduled for the next tick: run it now
      if (entry.flushScheduled) {
        this.scheduleFlush(entry, entry.pushSource)
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
    entry.chain = entry.chain.then(async () => this.compactNow(entry))
    await entry.chain
  }

  async close (name: string): Promise<void> {
    const entry = this.docs.get(name)
    if (entry == null) return
    await this.flush(name)
    if (entry.dirtySinceCompaction || entry.persistence.pending > 1) {
      await this.compactNow(entry)
    }
    entry.doc.off('update', entry.onUpdate)
    entry.unguard?.()
    this.docs.delete(name)
    try {
      this.components.pubsub.unsubscribe(entry.topic)
    } catch (err) {
      log('unsubscribe %s failed: %e', entry.topic, err)
    }
    entry.doc.destroy()
  }

  async stop (): Promise<void> {
    if (this.stopped) return
    this.stopped = true
    if (this.compactTimer != null) clearInterval(this.compactTimer)
    this.components.pubsub.removeEventListener('message', this.onMessage)
    this.components.pubsub.removeEventListener('subscription-change', this.onSubscriptionChange)
    this.components.libp2p.removeEventListener('peer:disconnect', this.onPeerDisconnect)
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
