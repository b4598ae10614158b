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
import { peerToBytes } from './peer-bytes.js'
import { DONE, LOCKED, countStates, judge, toWire } from './queue.js'
import { OwnerSilence } from './owner-silence.js'
import { FutureSnapshots, epochValid, leaseSigner, yieldsTo } from './room-member.js'
import { applyRequest, handoff, ownerMemory, pickBatch, rebuildQueue, reconcile } from './room-owner.js'
import { TurnWaiter } from './room-waiter.js'
import { claimNextEpoch, ownerGossipAt, supersedingLease } from './room-failover.js'
import { readRoomMessage } from './room-inbox.js'
import { guardCoordTopic } from './topic-guard.js'
import { roomTopic } from './topics.js'
import type { CoordMessage } from './codec.js'
import type { Lease } from './leases.js'
import type { QueueState } from './queue.js'
import type { RoomPubSubMessage } from './room-inbox.js'
import type { EpochCheck } from './room-member.js'
import type { QueueView } from './room-owner.js'
import type { LockedItem, RoomComponents, RoomEvents, RoomInit } from './room-types.js'
import type { AbortOptions } from '@libp2p/interface'

const log = logger('jobmesh:room')

export type { RoomPubSubMessage }
export type { LockedItem, RoomComponents, RoomEvents, RoomInit, RoomPubSub } from './room-types.js'

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
  private readonly future = new FutureSnapshots(DEFAULT_MAX_BUFFERED_SNAPSHOTS)
  /** Checks of the MacroJob lease behind a snapshot's epoch (room-member.ts). */
  private readonly epochCheck: EpochCheck
  /** The caller of `next` waiting for a turn. */
  private readonly waiter = new TurnWaiter()
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
  /** The owner's reads of the CRDT (room-owner.ts) and what it remembers between heartbeats. */
  private readonly view: QueueView
  private readonly memory = ownerMemory()
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
    this.epochCheck = {
      verifier: components.verifier,
      domain: this.macroDomain,
      crdtLease: () => components.macroLeases.get(this.macroKey)
    }
    this.view = {
      hasResult: (i) => components.progress.has(microKey(init.macroIndex, i)),
      lease: (i) => components.microLeases.get(microKey(init.macroIndex, i)),
      isOpen: (lease, now) => components.leases.isOpen(lease, now),
      graceMs: components.leases.leaseMs + components.leases.skewMs
    }
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
    const { states, locks } = rebuildQueue(this.size, this.view, this.clock())
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
    const promise = this.waiter.wait(want, options)
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
    this.waiter.reject(new RoomClosedError('room closed'))
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
    const want = this.waiter.want
    if (want != null) {
      this.satisfy(this.lockBatch(want))
    }
    const next = state.pending.find(p => p !== this.self)
    if (next != null && this.waiter.want == null) {
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
    if (countStates(state.states).open === 0) {
      return []
    }
    // a later epoch exists in the CRDT (a failover claimed the MacroJob): this queue is dead, lock nothing more
    const macroLease = this.components.macroLeases.get(this.macroKey)
    if (macroLease != null && macroLease.term > state.epoch) {
      log('%s room %d: epoch %d superseded by lease term %d, not locking', this.self.slice(-6), this.macroIndex,
        state.epoch, macroLease.term)
      return []
    }
    const { indices, changed } = pickBatch(state, this.view, this.self, want, this.maxBatch, this.clock())
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
    if (this.state == null) {
      return
    }
    handoff(this.state, this.self, to)
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
    if (state != null && this.isOwner && applyRequest(state, this.self, from, { done: req.done.filter(i => i < this.size), want: req.want })) {
      this.scheduleFlush()
    }
  }

  /** Owner, on heartbeat: the queue re-synced with the CRDT (room-owner.ts `reconcile`). */
  private reconcile (): void {
    if (this.state == null) {
      return
    }
    const { reopened } = reconcile(this.state, this.view, this.self, this.clock(), this.memory)
    for (const index of reopened) {
      log('%s room %d: item %d was marked done but has no result: re-opened', this.self.slice(-6), this.macroIndex, index)
    }
  }

  // ---- member side ----

  private request (): void {
    const want = this.waiter.want
    if (want == null || this.isOwner || this.closed) {
      return
    }
    this.sendRequest(want)
  }

  private sendRequest (want: number): void {
    this.lastRequest = this.clock()
    const done = this.doneOutbox
    this.doneOutbox = []
    this.components.metrics.requestsSent++
    this.publish({ request: { macroIndex: this.macroIndex, done, want } })
  }

  private satisfy (items: LockedItem[]): void {
    this.waiter.satisfy(items)
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
    if (this.waiter.want != null && !this.state?.pending.includes(this.self) && now - this.lastRequest >= this.heartbeatMs / 2) {
      this.request()
    } else if (this.waiter.want == null && this.doneOutbox.length > 0) {
      this.sendRequest(0)
    }
    if (this.failingOver) {
      return
    }
    const seen = ownerGossipAt(this.state?.owner, this.components.macroLeases.get(this.macroKey),
      (lease) => this.components.leases.isOpen(lease, now), this.components.lastSeen)
    // silent: the failover waits for the next tick, so that messages a busy loop held back are read first
    if (this.silence.decide(now, seen) === 'failover') {
      void this.failover()
    }
  }

  /** The live MacroJob lease of a later epoch held by another peer, if the CRDT shows one. */
  private supersededBy (): Lease | undefined {
    return this.state == null
      ? undefined
      : supersedingLease(this.components.macroLeases.get(this.macroKey), this.state.epoch, this.self, (lease) => this.components.leases.isOpen(lease))
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
      log('%s room %d: owner %s silent, claiming the next epoch', this.self.slice(-6), this.macroIndex, this.state?.owner.slice(-6))
      const lease = await claimNextEpoch(this.components.macroLeases, this.macroKey, seenEpoch, this.abort.signal)
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
    const verdict = judge(this.state, next, from, (n, f) => epochValid(this.epochCheck, n, f))
    switch (verdict) {
      case 'heartbeat':
        this.silence.heard(this.clock())
        return
      case 'stale':
        if (!fromBuffer) metrics.droppedStale++
        return
      case 'forged':
        if (yieldsTo(this.epochCheck, this.state, this.epochRoot, next, from)) {
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
          this.future.add(next, from, this.clock())
        }
        return
      case 'accept':
        this.accept(next)
    }
  }

  private accept (next: QueueState): void {
    const wasOwner = this.isOwner
    if (next.macroLease != null) {
      this.epochRoot = leaseSigner(this.epochCheck, next.macroLease, next.epoch) ?? this.epochRoot
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
    if (this.waiter.want != null) {
      if (countStates(state.states).open === 0) {
        this.satisfy([])
      } else if (!state.pending.includes(this.self) && this.clock() - this.lastRequest >= this.heartbeatMs / 4) {
        this.request()
      }
    }
  }

  /** Applies a buffered snapshot that now continues the chain; after a heartbeat without the gap filling, the newest. */
  private drainFuture (timedOut: boolean): void {
    const next = this.future.next(this.state, (n, from) => judge(this.state, n, from, (m, f) => epochValid(this.epochCheck, m, f)),
      this.clock(), timedOut ? this.heartbeatMs : undefined)
    if (next != null) this.accept(next)
  }
}
