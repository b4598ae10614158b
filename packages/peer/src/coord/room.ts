import { logger } from '@libp2p/logger'
import { encodeMessage, messageKind } from './codec.js'
import { countSent } from '../protocol/counters.js'
import {
  DEFAULT_HEARTBEAT_MS, DEFAULT_MAX_BATCH, DEFAULT_MAX_BUFFERED_SNAPSHOTS, DEFAULT_MAX_MESSAGE_BYTES,
  DEFAULT_OWNER_TIMEOUT_MS
} from './constants.js'
import { LeaseLostError, RoomClosedError } from './errors.js'
import { TypedEvents } from './events.js'
import { macroKey, macroScope, microKey } from './keys.js'
import { LeaseRecord } from './pb/coord.js'
import { peerToBytes } from './peer-bytes.js'
import { DONE, LOCKED, OPEN, compareStates, countStates, fairBatch, judge, toWire } from './queue.js'
import { OwnerSilence } from './owner-silence.js'
import { readRoomMessage } from './room-inbox.js'
import { guardCoordTopic } from './topic-guard.js'
import { roomTopic } from './topics.js'
import type { CoordMessage } from './codec.js'
import type { Lease, LeaseTable, Leases } from './leases.js'
import type { CoordMetrics } from './metrics.js'
import type { JobProgress } from './progress.js'
import type { QueueState } from './queue.js'
import type { RecordVerifier } from './signing.js'
import type { RoomPubSubMessage } from './room-inbox.js'
import type { TrafficCounters } from '../protocol/counters.js'
import type { GuardedPubSub } from '../crdt/gossip-guard.js'
import type { AbortOptions } from '@libp2p/interface'

const log = logger('jobmesh:room')

export type { RoomPubSubMessage }

/** The slice of gossipsub a room needs. */
export interface RoomPubSub extends Partial<GuardedPubSub> {
  subscribe(topic: string): void
  unsubscribe(topic: string): void
  publish(topic: string, data?: Uint8Array): Promise<unknown>
  addEventListener(type: 'message', listener: (evt: CustomEvent<RoomPubSubMessage>) => void): void
  removeEventListener(type: 'message', listener: (evt: CustomEvent<RoomPubSubMessage>) => void): void
}

export interface RoomComponents {
  pubsub: RoomPubSub
  /** This peer's PeerId string. */
  peerId: string
  leases: Leases
  verifier: RecordVerifier
  /** Leases of the job's `macro` and `micro` maps. */
  macroLeases: LeaseTable
  microLeases: LeaseTable
  progress: JobProgress
  metrics: CoordMetrics
  clock?: () => number
  /**
   * When a message from `peer` about this job (any of its topics: rooms, `/macro`, the job doc's CRDT updates)
   * was last received. The owner is alive while it sends anything, not only snapshots.
   */
  lastSeen?(peer: string): number | undefined
  /** Counts the room's messages (benches, profiles). */
  counters?: TrafficCounters
  /**
   * Runs `lock` (which writes the MicroJob leases of a batch this peer locks for itself) in one CRDT transaction
   * together with this peer's unwritten results: one update per queue turn instead of two. Default: `lock` alone.
   */
  lockWith?(lock: () => void): void
}

export interface RoomInit {
  jobId: string
  macroIndex: number
  macroId: string
  /** MicroJobs in this MacroJob. */
  size: number
  heartbeatMs?: number
  ownerTimeoutMs?: number
  maxBatch?: number
  maxMessageBytes?: number
}

/** An item handed to this peer: run it and report it with {@link MacroRoom.done}. */
export interface LockedItem {
  macroIndex: number
  index: number
  /** MicroJob lease term (fencing token for the result). */
  leaseTerm: number
}

export interface RoomEvents {
  /** This peer became queue owner (`detail` = the new state). */
  ownership: QueueState
  /** A snapshot was accepted (any owner). */
  snapshot: QueueState
  /** Every item is done. */
  complete: { macroIndex: number }
  /** This peer took the queue over through the MacroJob lease. */
  failover: { epoch: number }
}

interface Wanting {
  want: number
  resolve(items: LockedItem[]): void
  reject(err: Error): void
}

/**
 * The room of one MacroJob (DESIGN 7): the in-memory MicroJob queue, handed from owner to requester over
 * gossipsub, with owner heartbeats and failover through the MacroJob lease.
 */
export class MacroRoom extends TypedEvents<RoomEvents> {
  readonly topic: string
  readonly macroIndex: number
  readonly size: number
  state: QueueState | undefined
  /** Every owner this peer has seen accepted, in order (observability and tests). */
  readonly ownersSeen = new Set<string>()
  private readonly components: RoomComponents
  private readonly clock: () => number
  private readonly heartbeatMs: number
  private readonly ownerTimeoutMs: number
  private readonly maxBatch: number
  private readonly maxBytes: number
  private readonly self: string
  private readonly macroKey: string
  private readonly macroDomain: string
  private readonly onMessage: (evt: CustomEvent<RoomPubSubMessage>) => void
  private readonly onDone: (evt: CustomEvent<{ key: string }>) => void
  private readonly future: Array<{ state: QueueState, from: string, at: number }> = []
  private wanting: Wanting | undefined
  private doneOutbox: number[] = []
  private lastRequest = 0
  private lastPublish = 0
  private timer: ReturnType<typeof setInterval> | undefined
  private flushScheduled = false
  private failingOver = false
  private closed = false
  private completed = false
  private readonly abort = new AbortController()
  private lastMacroRenew = 0
  private readonly lockSeen = new Map<number, number>()
  /** Items marked done without a result in the CRDT, and since when (reconcile re-opens them after a lease). */
  private readonly doneSeen = new Map<number, number>()
  private unguard: () => void = () => {}
  /** The peer that opened the current epoch, when known. */
  private epochRoot: string | undefined
  private readonly tickMs: number
  /** The failover role: when the queue was last heard from, and whether its silence is real. */
  private readonly silence: OwnerSilence

  constructor (components: RoomComponents, init: RoomInit) {
    super()
    this.components = components
    this.clock = components.clock ?? Date.now
    this.self = components.peerId
    this.macroIndex = init.macroIndex
    this.size = init.size
    this.topic = roomTopic(init.jobId, init.macroId)
    this.heartbeatMs = init.heartbeatMs ?? DEFAULT_HEARTBEAT_MS
    this.ownerTimeoutMs = init.ownerTimeoutMs ?? DEFAULT_OWNER_TIMEOUT_MS
    this.maxBatch = init.maxBatch ?? DEFAULT_MAX_BATCH
    this.maxBytes = init.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES
    this.macroKey = macroKey(init.macroIndex)
    this.macroDomain = `${macroScope(init.jobId)}/${this.macroKey}`
    this.tickMs = Math.max(10, Math.floor(this.heartbeatMs / 2))
    this.silence = new OwnerSilence({
      ownerTimeoutMs: this.ownerTimeoutMs,
      jitterMs: Math.floor(Math.random() * Math.max(1, this.heartbeatMs / 2)),
      tickMs: this.tickMs,
      now: this.clock()
    })
    this.onMessage = (evt) => { this.handle(evt.detail) }
    this.onDone = (evt) => { this.crdtDone(evt.detail.key) }
  }

  get isOwner (): boolean {
    return this.state?.owner === this.self
  }

  get isComplete (): boolean {
    return this.completed
  }

  /** Subscribes to the room topic and starts the timers. */
  start (): void {
    this.unguard = guardCoordTopic(this.components.pubsub, this.topic, { maxMessageBytes: this.maxBytes, metrics: this.components.metrics })
    this.components.pubsub.subscribe(this.topic)
    this.components.pubsub.addEventListener('message', this.onMessage)
    this.components.progress.addEventListener('microjob:done', this.onDone)
    this.silence.heard(this.clock())
    this.timer = setInterval(() => { this.tick() }, this.tickMs)
    this.checkComplete()
  }

  /**
   * Creates the queue as owner under a MacroJob lease this peer holds (`lease.term` becomes the epoch),
   * rebuilt from the CRDT: items with a result are done, items with a live MicroJob lease are locked by its
   * holder, the rest are open.
   */
  create (lease: Lease): void {
    const states = new Uint8Array(this.size)
    const locks = new Map<number, { holder: string, leaseTerm: number }>()
    for (let i = 0; i < this.size; i++) {
      const key = microKey(this.macroIndex, i)
      if (this.components.progress.has(key)) {
        states[i] = DONE
        continue
      }
      const l = this.components.microLeases.get(key)
      if (l != null && !this.components.leases.isOpen(l)) {
        states[i] = LOCKED
        locks.set(i, { holder: l.owner, leaseTerm: l.term })
      }
    }
    const macroLease = this.components.macroLeases.get(this.macroKey)
    const raw = macroLease?.term === lease.term ? this.rawMacroLease() : undefined
    this.state = {
      macroIndex: this.macroIndex,
      epoch: lease.term,
      term: 0,
      owner: this.self,
      prevOwner: this.self,
      version: 0,
      states,
      locks,
      pending: (this.state?.pending ?? []).filter(p => p !== this.self && p !== this.state?.owner),
      macroLease: raw
    }
    this.lastMacroRenew = this.clock()
    this.epochRoot = this.self
    this.ownersSeen.add(this.self)
    log('%s room %d: created epoch %d (%o)', this.self.slice(-6), this.macroIndex, lease.term, countStates(states))
    this.safeDispatch('ownership', this.state)
    this.serve()
  }

  /**
   * Waits until this peer owns the queue, locks up to `want` open items for itself (a fair share) and returns
   * them. Resolves `[]` when the room has no open item (all done or all locked by others).
   */
  async next (want: number, options: AbortOptions = {}): Promise<LockedItem[]> {
    if (this.closed) {
      throw new RoomClosedError('room closed')
    }
    if (this.wanting != null) {
      throw new Error('next() is already waiting')
    }
    options.signal?.throwIfAborted()
    let resolve!: (items: LockedItem[]) => void
    let reject!: (err: Error) => void
    const promise = new Promise<LockedItem[]>((res, rej) => { resolve = res; reject = rej })
    const onAbort = (): void => {
      if (this.wanting?.resolve === wanting.resolve) {
        this.wanting = undefined
      }
      reject(options.signal?.reason)
    }
    const wanting: Wanting = {
      want: Math.max(1, want),
      resolve: (items) => {
        options.signal?.removeEventListener('abort', onAbort)
        resolve(items)
      },
      reject: (err) => {
        options.signal?.removeEventListener('abort', onAbort)
        reject(err)
      }
    }
    options.signal?.addEventListener('abort', onAbort, { once: true })
    this.wanting = wanting
    if (this.completed) {
      this.satisfy([])
    } else if (this.isOwner) {
      this.serve()
    } else if (this.state != null && countStates(this.state.states).open === 0) {
      this.satisfy([])
    } else {
      this.request()
    }
    return promise
  }

  /**
   * Reports an item this peer finished (its result is in the CRDT). The owner marks it without publishing: a done
   * item changes nothing a member acts on (members read results from the CRDT), so it rides on the next handoff or
   * heartbeat instead of costing a snapshot per MicroJob.
   */
  done (index: number): void {
    const state = this.state
    if (state != null && this.isOwner) {
      if (state.states[index] !== DONE) {
        state.states[index] = DONE
        state.locks.delete(index)
        state.version++
      }
    } else {
      this.doneOutbox.push(index)
    }
    this.checkComplete()
  }

  /**
   * Reports a locked item this peer will not run (its CRDT lease went to another peer): the owner re-reads it.
   */
  lost (index: number): void {
    const state = this.state
    if (state == null || !this.isOwner) {
      return
    }
    const lease = this.components.microLeases.get(microKey(this.macroIndex, index))
    if (state.states[index] === LOCKED && lease != null && lease.owner !== this.self) {
      state.locks.set(index, { holder: lease.owner, leaseTerm: lease.term })
      state.version++
      this.scheduleFlush()
    }
  }

  /**
   * Leaves the room. A graceful close hands ownership to the first pending requester (or reports finished
   * items); `{ abrupt: true }` just stops (what a crash looks like to the others).
   */
  close (options: { abrupt?: boolean } = {}): void {
    if (this.closed) {
      return
    }
    if (options.abrupt !== true) {
      try {
        if (this.isOwner && this.state != null) {
          const next = this.state.pending.find(p => p !== this.self)
          if (next != null) {
            this.handoff(next)
          }
          this.publishState()
        } else if (this.doneOutbox.length > 0) {
          this.sendRequest(0)
        }
      } catch (err) {
        log.error('close: %e', err)
      }
    }
    this.closed = true
    this.abort.abort()
    clearInterval(this.timer)
    this.components.pubsub.removeEventListener('message', this.onMessage)
    this.components.progress.removeEventListener('microjob:done', this.onDone)
    this.components.pubsub.unsubscribe(this.topic)
    this.unguard()
    this.wanting?.reject(new RoomClosedError('room closed'))
    this.wanting = undefined
  }

  /** A RoomAnnouncement of this queue, when this peer owns it. */
  announcement (): CoordMessage['room'] | undefined {
    if (!this.isOwner || this.state == null || this.completed) {
      return undefined
    }
    const c = countStates(this.state.states)
    return { macroIndex: this.macroIndex, epoch: this.state.epoch, owner: peerToBytes(this.self) as Uint8Array<ArrayBuffer>, open: c.open, done: c.done }
  }

  // ---- owner side ----

  /** Owner: lock a batch for self if wanting, hand off to the first pending requester, publish. */
  private serve (): void {
    const state = this.state
    if (state == null || !this.isOwner || this.closed) {
      return
    }
    if (this.supersededBy() != null) {
      // a failover claimed a later epoch: this queue stops at once (no locks, no handoff, no heartbeat); the
      // new epoch's first snapshot makes this peer a member of it
      this.satisfy([])
      return
    }
    if (this.wanting != null) {
      const items = this.lockBatch(this.wanting.want)
      this.satisfy(items)
    }
    const next = state.pending.find(p => p !== this.self)
    if (next != null && this.wanting == null) {
      this.handoff(next)
    } else {
      state.pending = state.pending.filter(p => p !== this.self)
    }
    this.publishState()
    this.checkComplete()
  }

  private lockBatch (want: number): LockedItem[] {
    const state = this.state
    if (state == null) {
      return []
    }
    const counts = countStates(state.states)
    if (counts.open === 0) {
      return []
    }
    // a later epoch exists in the CRDT (a failover claimed the MacroJob): this queue is dead, lock nothing more
    const macroLease = this.components.macroLeases.get(this.macroKey)
    if (macroLease != null && macroLease.term > state.epoch) {
      log('%s room %d: epoch %d superseded by lease term %d, not locking', this.self.slice(-6), this.macroIndex,
        state.epoch, macroLease.term)
      return []
    }
    const members = new Set<string>(state.pending)
    for (const l of state.locks.values()) members.add(l.holder)
    members.add(this.self)
    const n = fairBatch(counts.open, members.size, want, this.maxBatch)
    // the CRDT decides over the in-memory queue: an item with a result is done, an item whose MicroJob lease
    // another peer holds (a rival queue of the same MacroJob, or a lock this queue never heard of) is its lock
    const indices: number[] = []
    const now = this.clock()
    let changed = false
    for (let i = 0; i < state.states.length && indices.length < n; i++) {
      if (state.states[i] !== OPEN) continue
      const key = microKey(this.macroIndex, i)
      if (this.components.progress.has(key)) {
        state.states[i] = DONE
        changed = true
        continue
      }
      const lease = this.components.microLeases.get(key)
      if (lease != null && lease.owner !== this.self && !this.components.leases.isOpen(lease, now)) {
        state.states[i] = LOCKED
        state.locks.set(i, { holder: lease.owner, leaseTerm: lease.term })
        changed = true
        continue
      }
      indices.push(i)
    }
    if (indices.length === 0) {
      if (changed) state.version++
      return []
    }
    const keys = indices.map(i => microKey(this.macroIndex, i))
    let leases = new Map<string, Lease>()
    const lock = (): void => { leases = this.components.microLeases.takeMany(keys) }
    if (this.components.lockWith != null) this.components.lockWith(lock)
    else lock()
    const items: LockedItem[] = []
    for (const i of indices) {
      const lease = leases.get(microKey(this.macroIndex, i))
      const leaseTerm = lease?.term ?? 1
      state.states[i] = LOCKED
      state.locks.set(i, { holder: this.self, leaseTerm })
      items.push({ macroIndex: this.macroIndex, index: i, leaseTerm })
    }
    state.version++
    return items
  }

  private handoff (to: string): void {
    const state = this.state
    if (state == null) {
      return
    }
    state.term++
    state.version++
    state.prevOwner = this.self
    state.owner = to
    state.pending = state.pending.filter(p => p !== to && p !== this.self)
    this.components.metrics.handoffs++
    this.ownersSeen.add(to)
  }

  private publishState (): void {
    const state = this.state
    if (state == null || this.closed) {
      return
    }
    this.lastPublish = this.clock()
    this.components.metrics.snapshotsSent++
    this.publish({ snapshot: toWire(state) })
  }

  private scheduleFlush (): void {
    if (this.flushScheduled) {
      return
    }
    this.flushScheduled = true
    setImmediate(() => {
      this.flushScheduled = false
      if (this.isOwner) {
        this.serve()
      }
    })
  }

  private onRequest (from: string, req: NonNullable<CoordMessage['request']>): void {
    const state = this.state
    if (state == null || !this.isOwner) {
      return
    }
    let changed = false
    for (const index of req.done) {
      const lock = state.locks.get(index)
      if (index < this.size && state.states[index] === LOCKED && lock?.holder === from) {
        state.states[index] = DONE
        state.locks.delete(index)
        changed = true
      }
    }
    if (req.want > 0 && from !== this.self && !state.pending.includes(from)) {
      state.pending.push(from)
      changed = true
    }
    if (changed) {
      state.version++
      this.scheduleFlush()
    }
  }

  /**
   * Owner, on heartbeat: re-syncs the queue with the CRDT, whatever happened meanwhile (lost snapshots, skipped or
   * failed items, a flood, overwritten records): a result makes an item done; a live lease of another peer makes it
   * that peer's lock; a lock whose lease expired or was released (this peer's own included) re-opens it; an item
   * marked done whose result has not appeared within a lease (plus skew) re-opens too. No item of an open MacroJob
   * stays unrun.
   */
  private reconcile (): void {
    const state = this.state
    if (state == null) {
      return
    }
    let changed = false
    const now = this.clock()
    for (const [index, lock] of state.locks) {
      const key = microKey(this.macroIndex, index)
      if (this.components.progress.has(key)) {
        state.states[index] = DONE
        state.locks.delete(index)
        changed = true
        continue
      }
      const lease = this.components.microLeases.get(key)
      if (lease != null && (lease.owner !== lock.holder || lease.term !== lock.leaseTerm) && !this.components.leases.isOpen(lease, now)) {
        // the lease moved (a rival queue, a failover): follow it, and re-open the item when that lease expires
        state.locks.set(index, { holder: lease.owner, leaseTerm: lease.term })
        changed = true
      } else if (this.lockExpired(index, key, now)) {
        state.states[index] = OPEN
        state.locks.delete(index)
        changed = true
      }
    }
    for (let index = 0; index < state.states.length; index++) {
      const s = state.states[index]
      if (s === OPEN || (s === LOCKED && state.locks.has(index))) continue
      const key = microKey(this.macroIndex, index)
      if (this.components.progress.has(key)) {
        if (s !== DONE) { state.states[index] = DONE; changed = true }
        this.doneSeen.delete(index)
        continue
      }
      if (s === LOCKED) {
        // locked without a known holder: treat like a lock whose lease never arrived
        state.locks.set(index, { holder: this.components.microLeases.get(key)?.owner ?? this.self, leaseTerm: this.components.microLeases.get(key)?.term ?? 0 })
        changed = true
        continue
      }
      const seen = this.doneSeen.get(index)
      if (seen == null) {
        this.doneSeen.set(index, now)
      } else if (now - seen > this.components.leases.leaseMs + this.components.leases.skewMs) {
        this.doneSeen.delete(index)
        state.states[index] = OPEN
        changed = true
        log('%s room %d: item %d was marked done but has no result: re-opened', this.self.slice(-6), this.macroIndex, index)
      }
    }
    for (const index of this.lockSeen.keys()) {
      if (!state.locks.has(index)) this.lockSeen.delete(index)
    }
    if (changed) {
      state.version++
    }
  }

  /**
   * A lock is given up when its MicroJob lease in the CRDT has expired, or, when the lease never arrived, when
   * the lock is older (as seen here) than a lease plus the skew allowance. A lease not yet synced is not "open".
   */
  private lockExpired (index: number, key: string, now: number): boolean {
    const lease = this.components.microLeases.get(key)
    if (lease != null) {
      return this.components.leases.isOpen(lease, now)
    }
    const seen = this.lockSeen.get(index)
    if (seen == null) {
      this.lockSeen.set(index, now)
      return false
    }
    return now - seen > this.components.leases.leaseMs + this.components.leases.skewMs
  }

  // ---- member side ----

  private request (): void {
    if (this.wanting == null || this.isOwner || this.closed) {
      return
    }
    this.sendRequest(this.wanting.want)
  }

  private sendRequest (want: number): void {
    this.lastRequest = this.clock()
    const done = this.doneOutbox
    this.doneOutbox = []
    this.components.metrics.requestsSent++
    this.publish({ request: { macroIndex: this.macroIndex, done, want } })
  }

  private satisfy (items: LockedItem[]): void {
    const w = this.wanting
    if (w == null) {
      return
    }
    this.wanting = undefined
    w.resolve(items)
  }

  private crdtDone (key: string): void {
    const dot = key.indexOf('.')
    if (Number(key.slice(0, dot)) !== this.macroIndex) {
      return
    }
    const index = Number(key.slice(dot + 1))
    const state = this.state
    if (state != null && this.isOwner && state.states[index] !== DONE) {
      // published with the next handoff or heartbeat (see done)
      state.states[index] = DONE
      state.locks.delete(index)
      state.version++
    }
    this.checkComplete()
  }

  private checkComplete (): void {
    if (this.completed) {
      return
    }
    // the per-MacroJob count is a cheap filter; the exact check runs only when it could pass (a signed result
    // under an out-of-range key would count, but not match an index of this MacroJob)
    const byCrdt = (): boolean => {
      if (this.components.progress.doneIn(this.macroIndex) < this.size) return false
      for (let i = 0; i < this.size; i++) {
        if (!this.components.progress.has(microKey(this.macroIndex, i))) return false
      }
      return true
    }
    // only the CRDT completes a room: an item the queue marks done without a result is re-opened by reconcile
    if (byCrdt()) {
      this.completed = true
      if (this.isOwner) {
        this.publishState()
      }
      this.satisfy([])
      this.safeDispatch('complete', { macroIndex: this.macroIndex })
    }
  }

  private tick (): void {
    if (this.closed) {
      return
    }
    const now = this.clock()
    // time this process could not run (a starved event loop) is not silence of the owner: nothing could be read
    this.silence.tick(now)
    this.renewMacroLease(now)
    if (this.completed) {
      return
    }
    this.silence.watchLease(now, this.components.macroLeases.get(this.macroKey), {
      self: this.self,
      owner: this.state?.owner,
      epoch: this.state?.epoch ?? 0,
      isOpen: (lease) => this.components.leases.isOpen(lease, now)
    })
    if (this.isOwner) {
      this.reconcile()
      if (now - this.lastPublish >= this.heartbeatMs) {
        this.serve()
      }
      this.checkComplete()
      return
    }
    this.drainFuture(true)
    if (this.wanting != null && !this.state?.pending.includes(this.self) && now - this.lastRequest >= this.heartbeatMs / 2) {
      this.request()
    } else if (this.wanting == null && this.doneOutbox.length > 0) {
      this.sendRequest(0)
    }
    if (this.failingOver) {
      return
    }
    const owner = this.state?.owner
    // other gossip from the owner's PeerId counts only while its MacroJob lease is live: a process restarted under
    // the same PeerId gossips, but it lost the queue and never renews the lease, so it must not hold the room
    const lease = this.components.macroLeases.get(this.macroKey)
    const ownerLeaseLive = lease != null && lease.owner === owner && !this.components.leases.isOpen(lease, now)
    const seen = owner == null || !ownerLeaseLive ? undefined : this.components.lastSeen?.(owner)
    // silent: the failover waits for the next tick, so that messages a busy loop held back are read first
    if (this.silence.decide(now, seen) === 'failover') {
      void this.failover()
    }
  }

  /** The live MacroJob lease of a later epoch held by another peer, if the CRDT shows one. */
  private supersededBy (): Lease | undefined {
    const state = this.state
    if (state == null) {
      return undefined
    }
    const lease = this.components.macroLeases.get(this.macroKey)
    if (lease == null || lease.term <= state.epoch || lease.owner === this.self || this.components.leases.isOpen(lease)) {
      return undefined
    }
    return lease
  }

  private renewMacroLease (now: number): void {
    const lease = this.components.macroLeases.get(this.macroKey)
    if (lease == null || lease.owner !== this.self || now - this.lastMacroRenew < this.components.leases.renewMs) {
      return
    }
    this.lastMacroRenew = now
    if (this.completed) {
      this.components.macroLeases.release(this.macroKey, lease.term)
    } else {
      this.components.macroLeases.renew(this.macroKey, lease.term)
    }
  }

  /** The owner went silent: claim the MacroJob lease with a higher term; the CRDT winner rebuilds the queue. */
  private async failover (): Promise<void> {
    this.failingOver = true
    const seenEpoch = this.state?.epoch ?? 0
    try {
      const crdt = this.components.macroLeases.get(this.macroKey)
      const minTerm = Math.max(seenEpoch, crdt?.term ?? 0) + 1
      log('%s room %d: owner %s silent, claiming epoch %d', this.self.slice(-6), this.macroIndex,
        this.state?.owner.slice(-6), minTerm)
      const lease = await this.components.macroLeases.claim(this.macroKey, { force: true, minTerm, signal: this.abort.signal })
      if (this.closed || (this.state != null && this.state.epoch >= lease.term && this.state.owner !== this.self)) {
        return
      }
      this.components.metrics.failovers++
      this.create(lease)
      this.safeDispatch('failover', { epoch: lease.term })
    } catch (err) {
      if ((err as Error).name !== LeaseLostError.name && !this.closed) {
        log.error('failover: %e', err)
      }
    } finally {
      this.silence.heard(this.clock())
      this.failingOver = false
    }
  }

  // ---- wire ----

  private publish (msg: Partial<CoordMessage>): void {
    let bytes: Uint8Array
    try {
      bytes = encodeMessage(msg, this.maxBytes)
    } catch (err) {
      log.error('cannot encode: %e', err)
      return
    }
    countSent(this.components.counters, messageKind(msg), bytes.byteLength)
    this.components.pubsub.publish(this.topic, bytes).catch((err: Error) => {
      log('publish on %s failed: %s', this.topic, err.message)
    })
  }

  private rawMacroLease (): Uint8Array | undefined {
    return this.components.macroLeases.raw(this.macroKey)
  }

  private epochValid (next: QueueState, from: string): boolean | undefined {
    if (next.macroLease != null) {
      const record = this.components.verifier.verify(next.macroLease, this.macroDomain)
      if (record == null || (next.term === 0 && record.signer !== from)) {
        return false
      }
      try {
        return LeaseRecord.decode(record.payload).term === next.epoch
      } catch {
        return false
      }
    }
    const lease = this.components.macroLeases.get(this.macroKey)
    if (lease == null || lease.term < next.epoch) {
      return undefined
    }
    return true
  }

  private handle (msg: RoomPubSubMessage): void {
    if (this.closed) {
      return
    }
    const entry = readRoomMessage(msg, {
      topic: this.topic, self: this.self, macroIndex: this.macroIndex, size: this.size, maxBytes: this.maxBytes,
      counters: this.components.counters
    })
    if (entry.kind === 'ignore') {
      return
    }
    if (entry.from != null && entry.from === this.state?.owner) {
      // anything the owner sends (even a stale or reordered snapshot, or a request) shows it is alive
      this.silence.heard(this.clock())
    }
    const metrics = this.components.metrics
    switch (entry.kind) {
      case 'drop':
        if (entry.reason === 'forged') metrics.droppedForged++
        else if (entry.reason === 'oversized') metrics.droppedOversized++
        else metrics.droppedMalformed++
        return
      case 'request':
        this.onRequest(entry.from, entry.request)
        return
      case 'snapshot':
        this.consider(entry.state, entry.from, false)
    }
  }


  private consider (next: QueueState, from: string, fromBuffer: boolean): void {
    const metrics = this.components.metrics
    const verdict = judge(this.state, next, from, (n, f) => this.epochValid(n, f))
    switch (verdict) {
      case 'heartbeat':
        this.silence.heard(this.clock())
        return
      case 'stale':
        if (!fromBuffer) metrics.droppedStale++
        return
      case 'forged':
        if (this.yieldsTo(next, from)) {
          this.accept(next)
          return
        }
        if (!fromBuffer) metrics.droppedForged++
        log('%s room %d: forged snapshot from %s', this.self.slice(-6), this.macroIndex, from.slice(-6))
        return
      case 'future':
        if (!fromBuffer) {
          // a later turn of the chain: the queue is being served, this peer only missed a handoff
          this.silence.heard(this.clock())
          this.future.push({ state: next, from, at: this.clock() })
          if (this.future.length > DEFAULT_MAX_BUFFERED_SNAPSHOTS) this.future.shift()
        }
        return
      case 'accept':
        this.accept(next)
    }
  }

  /**
   * Two peers that claimed the same MacroJob lease term concurrently (before the CRDT converged) both open the
   * epoch. Both epoch-opening snapshots carry a signed lease of that term; the lower PeerId wins everywhere, and
   * the other owner yields (its locks stay in the CRDT and are re-read by the winner's reconcile).
   */
  private yieldsTo (next: QueueState, from: string): boolean {
    const cur = this.state
    if (cur == null || next.epoch !== cur.epoch || next.macroLease == null) {
      return false
    }
    if (from !== next.owner && from !== next.prevOwner) {
      return false
    }
    const rivalRoot = this.leaseSigner(next.macroLease, next.epoch)
    const root = this.epochRoot ?? (cur.macroLease != null ? this.leaseSigner(cur.macroLease, cur.epoch) : undefined)
    return rivalRoot != null && root != null && rivalRoot < root
  }

  private leaseSigner (bytes: Uint8Array, epoch: number): string | undefined {
    const record = this.components.verifier.verify(bytes, this.macroDomain)
    if (record == null) return undefined
    try {
      return LeaseRecord.decode(record.payload).term === epoch ? record.signer : undefined
    } catch {
      return undefined
    }
  }

  private accept (next: QueueState): void {
    const wasOwner = this.isOwner
    if (next.macroLease != null) {
      this.epochRoot = this.leaseSigner(next.macroLease, next.epoch) ?? this.epochRoot
    } else if (this.state == null || next.epoch !== this.state.epoch) {
      this.epochRoot = undefined
    }
    this.state = next
    this.silence.heard(this.clock())
    this.components.metrics.snapshotsAccepted++
    this.ownersSeen.add(next.owner)
    this.safeDispatch('snapshot', next)
    this.drainFuture(false)
    const state = this.state
    if (state.owner === this.self) {
      if (!wasOwner) {
        this.safeDispatch('ownership', state)
      }
      // mark what this peer finished while it was not the owner
      for (const index of this.doneOutbox) {
        if (state.states[index] === LOCKED) {
          state.states[index] = DONE
          state.locks.delete(index)
        }
      }
      this.doneOutbox = []
      this.serve()
      return
    }
    this.checkComplete()
    if (this.wanting != null) {
      if (countStates(state.states).open === 0) {
        this.satisfy([])
      } else if (!state.pending.includes(this.self) && this.clock() - this.lastRequest >= this.heartbeatMs / 4) {
        this.request()
      }
    }
  }

  /** Applies buffered snapshots that now continue the chain; after a heartbeat without the gap filling, takes the newest consistent one. */
  private drainFuture (timedOut: boolean): void {
    if (this.future.length === 0) {
      return
    }
    this.future.sort((a, b) => compareStates(a.state, b.state))
    let progressed = true
    while (progressed && this.future.length > 0) {
      progressed = false
      for (let i = 0; i < this.future.length; i++) {
        const f = this.future[i]
        const cur = this.state
        if (cur != null && compareStates(f.state, cur) <= 0) {
          this.future.splice(i, 1)
          progressed = true
          break
        }
        const verdict = judge(cur, f.state, f.from, (n, from) => this.epochValid(n, from))
        if (verdict === 'accept') {
          this.future.splice(i, 1)
          this.accept(f.state)
          return
        }
      }
    }
    if (timedOut && this.future.length > 0) {
      const newest = this.future[this.future.length - 1]
      if (this.clock() - newest.at >= this.heartbeatMs) {
        this.future.length = 0
        this.accept(newest.state)
      }
    }
  }
}
