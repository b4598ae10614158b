import { logger } from '@libp2p/logger'
import {
  DEFAULT_HEARTBEAT_MS, DEFAULT_MAX_BATCH, DEFAULT_MAX_BUFFERED_SNAPSHOTS, DEFAULT_MAX_MESSAGE_BYTES,
  DEFAULT_OWNER_TIMEOUT_MS, DEFAULT_RUN_LIMIT_MS
} from './constants.js'
import { RoomClosedError } from './errors.js'
import { TypedEvents } from './events.js'
import { macroKey, macroScope, microKey } from './keys.js'
import { multihashOfPeerId } from '../protocol/index.js'
import { DONE, LOCKED, countStates } from './queue.js'
import { OwnerSilence } from './owner-silence.js'
import { claimPeers, claimQueue, releaseUnserved } from './room-claim.js'
import { checkComplete, crdtDone } from './room-complete.js'
import { isOwner, publishState, satisfy } from './room-core.js'
import { handle, request, sendRequest } from './room-follow.js'
import { FutureSnapshots } from './room-member.js'
import { holdLimit, isDistrusted } from './hold-bound.js'
import { ownerMemory } from './room-owner.js'
import { createQueue, handOffTo, scheduleFlush, serve, stoodDown } from './room-serve.js'
import { tick } from './room-tick.js'
import { TurnWaiter } from './room-waiter.js'
import { guardCoordTopic } from './topic-guard.js'
import { roomTopic } from './topics.js'
import type { CoordMessage } from './codec.js'
import type { Lease } from './leases.js'
import type { QueueState } from './queue.js'
import type { RoomCore } from './room-core.js'
import type { RoomPubSubMessage } from './room-inbox.js'
import type { LockedItem, RoomComponents, RoomEvents, RoomInit } from './room-types.js'
import type { AbortOptions } from '@libp2p/interface'

const log = logger('jobmesh:room')

export type { RoomPubSubMessage }
export type { LockedItem, RoomComponents, RoomEvents, RoomInit, RoomPubSub } from './room-types.js'

/**
 * The room of one MacroJob (DESIGN 7): the in-memory MicroJob queue, handed from owner to requester over
 * gossipsub, with owner heartbeats and failover through the MacroJob lease.
 *
 * The class keeps the public API and the wiring (start, close); its owner and member halves work on one shared
 * {@link RoomCore}: room-serve.ts (owner), room-follow.ts (member), room-complete.ts, room-tick.ts (the timer).
 */
export class MacroRoom extends TypedEvents<RoomEvents> {
  readonly topic: string
  readonly macroIndex: number
  readonly size: number
  /** Every owner this peer has seen accepted, in order (observability and tests). */
  readonly ownersSeen = new Set<string>()
  private readonly components: RoomComponents
  private readonly core: RoomCore
  private readonly onMessage: (evt: CustomEvent<RoomPubSubMessage>) => void
  private readonly onDone: (evt: CustomEvent<{ key: string }>) => void
  private timer: ReturnType<typeof setInterval> | undefined
  private unguard: () => void = () => {}
  private readonly tickMs: number

  constructor (components: RoomComponents, init: RoomInit) {
    super()
    this.components = components
    const clock = components.clock ?? Date.now
    const self = components.peerId
    this.macroIndex = init.macroIndex
    this.size = init.size
    this.topic = roomTopic(init.jobId, init.macroId)
    const heartbeatMs = init.heartbeatMs ?? DEFAULT_HEARTBEAT_MS
    const ownerTimeoutMs = init.ownerTimeoutMs ?? DEFAULT_OWNER_TIMEOUT_MS
    const key = macroKey(init.macroIndex)
    const macroDomain = `${macroScope(init.jobId)}/${key}`
    this.tickMs = Math.max(10, Math.floor(heartbeatMs / 2))
    const silence = new OwnerSilence({
      ownerTimeoutMs,
      jitterMs: Math.floor(Math.random() * Math.max(1, heartbeatMs / 2)),
      tickMs: this.tickMs,
      now: clock()
    })
    this.core = {
      components,
      clock,
      self,
      macroIndex: init.macroIndex,
      size: init.size,
      topic: this.topic,
      heartbeatMs,
      maxBatch: init.maxBatch ?? DEFAULT_MAX_BATCH,
      maxBytes: init.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
      macroKey: key,
      epochCheck: {
        verifier: components.verifier,
        domain: macroDomain,
        crdtLease: () => components.macroLeases.get(key)
      },
      view: {
        hasResult: (i) => components.progress.has(microKey(init.macroIndex, i)),
        resultBy: (i) => components.progress.writer(microKey(init.macroIndex, i)),
        lease: (i) => components.microLeases.get(microKey(init.macroIndex, i)),
        isOpen: (lease, now) => components.leases.isOpen(lease, now),
        graceMs: components.leases.leaseMs + components.leases.skewMs,
        holdLimitMs: holdLimit(components.leases.leaseMs + components.leases.skewMs, init.runLimitMs ?? DEFAULT_RUN_LIMIT_MS,
          init.maxBatch ?? DEFAULT_MAX_BATCH)
      },
      memory: ownerMemory(),
      future: new FutureSnapshots(DEFAULT_MAX_BUFFERED_SNAPSHOTS),
      waiter: new TurnWaiter(),
      silence,
      ownersSeen: this.ownersSeen,
      abort: new AbortController(),
      state: undefined,
      doneOutbox: [],
      lastRequest: 0,
      lastPublish: 0,
      flushScheduled: false,
      claiming: false,
      early: [],
      claimedTerm: undefined,
      closed: false,
      completed: false,
      lastMacroRenew: 0,
      epochRoot: undefined,
      dispatch: (type, detail) => { this.safeDispatch(type, detail) }
    }
    this.onMessage = (evt) => { handle(this.core, evt.detail) }
    this.onDone = (evt) => { crdtDone(this.core, evt.detail.key) }
  }

  get state (): QueueState | undefined {
    return this.core.state
  }

  set state (state: QueueState | undefined) {
    this.core.state = state
  }

  get isOwner (): boolean {
    return isOwner(this.core)
  }

  get isComplete (): boolean {
    return this.core.completed
  }

  /** Subscribes to the room topic and starts the timers. */
  start (): void {
    this.unguard = guardCoordTopic(this.components.pubsub, this.topic, {
      maxMessageBytes: this.core.maxBytes, metrics: this.components.metrics, author: this.components.mayPublish
    })
    this.components.pubsub.subscribe(this.topic)
    this.components.pubsub.addEventListener('message', this.onMessage)
    this.components.progress.addEventListener('microjob:done', this.onDone)
    this.core.silence.heard(this.core.clock())
    this.timer = setInterval(() => { tick(this.core) }, this.tickMs)
    checkComplete(this.core)
  }

  /**
   * Claims the MacroJob lease for this room's queue (`LeaseTable.claim`: take, confirm, settle); open the queue with
   * {@link create} when it resolves. Throws `LeaseLostError` when a concurrent claim won. While it settles the room
   * does not fail its (absent) owner over; a lease it won but never opens is released by the room's next tick.
   */
  async claim (options: AbortOptions = {}): Promise<Lease> {
    return claimQueue(this.core, async () => this.components.macroLeases.claim(this.core.macroKey, { ...options, ...claimPeers(this.core) }))
  }

  /**
   * Creates the queue as owner under a MacroJob lease this peer holds (`lease.term` becomes the epoch),
   * rebuilt from the CRDT: items with a result are done, items with a live MicroJob lease are locked by its
   * holder, the rest are open.
   */
  create (lease: Lease): void {
    createQueue(this.core, lease)
  }

  /**
   * Waits until this peer owns the queue, locks up to `want` open items for itself (a fair share) and returns
   * them. Resolves `[]` when the room has no open item (all done or all locked by others).
   */
  async next (want: number, options: AbortOptions = {}): Promise<LockedItem[]> {
    const core = this.core
    if (core.closed) {
      throw new RoomClosedError('room closed')
    }
    const promise = core.waiter.wait(want, options)
    if (core.completed) {
      satisfy(core, [])
    } else if (this.isOwner) {
      serve(core)
    } else if (core.state != null && countStates(core.state.states).open === 0) {
      satisfy(core, [])
    } else {
      request(core)
    }
    return promise
  }

  /**
   * Reports an item this peer finished (its result is in the CRDT). The owner marks it without publishing: a done
   * item changes nothing a member acts on (members read results from the CRDT), so it rides on the next handoff or
   * heartbeat instead of costing a snapshot per MicroJob.
   */
  done (index: number): void {
    const state = this.core.state
    if (state != null && this.isOwner) {
      if (state.states[index] !== DONE) {
        state.states[index] = DONE
        state.locks.delete(index)
        state.version++
      }
    } else {
      this.core.doneOutbox.push(index)
    }
    checkComplete(this.core)
  }

  /**
   * Whether this peer still runs item `index` it locked under lease term `leaseTerm`: it holds that lease, or the
   * lease written over it is one this peer no longer believes (its writer held the item past the hold bound,
   * hold-bound.ts). A lease another believed peer took over (a rival queue) ends this peer's claim on the item.
   */
  mayRun (index: number, leaseTerm: number): boolean {
    const key = microKey(this.macroIndex, index)
    if (this.components.microLeases.holds(key, leaseTerm)) return true
    const lease = this.components.microLeases.get(key)
    return lease != null && isDistrusted(this.core.memory, index, lease.owner)
  }

  /**
   * Reports a locked item this peer will not run (its CRDT lease went to another peer): the owner re-reads it.
   */
  lost (index: number): void {
    const state = this.core.state
    if (state == null || !this.isOwner) {
      return
    }
    const lease = this.components.microLeases.get(microKey(this.macroIndex, index))
    if (state.states[index] === LOCKED && lease != null && lease.owner !== this.core.self) {
      state.locks.set(index, { holder: lease.owner, leaseTerm: lease.term })
      state.version++
      scheduleFlush(this.core)
    }
  }

  /**
   * Leaves the room. A graceful close hands ownership to the first pending requester, or, from a member, tells the
   * owner it wants nothing more (a request for 0 with its finished items); `{ abrupt: true }` just stops (what a
   * crash looks like to the others).
   */
  close (options: { abrupt?: boolean } = {}): void {
    const core = this.core
    if (core.closed) {
      return
    }
    if (options.abrupt !== true) {
      try {
        if (this.isOwner && core.state != null && !stoodDown(core)) {
          const next = core.state.pending.find(p => p !== core.self)
          if (next != null) {
            handOffTo(core, next)
          }
          publishState(core)
        } else if (!core.completed || core.doneOutbox.length > 0) {
          // leaving: the owner takes this peer off its pending list (no handoff to a peer that is gone) and
          // marks what it finished
          sendRequest(core, 0)
        }
      } catch (err) {
        log.error('close: %e', err)
      }
    }
    releaseUnserved(core)
    core.closed = true
    core.abort.abort()
    clearInterval(this.timer)
    this.components.pubsub.removeEventListener('message', this.onMessage)
    this.components.progress.removeEventListener('microjob:done', this.onDone)
    this.components.pubsub.unsubscribe(this.topic)
    this.unguard()
    core.waiter.reject(new RoomClosedError('room closed'))
  }

  /** A RoomAnnouncement of this queue, when this peer owns it. */
  announcement (): CoordMessage['room'] | undefined {
    const state = this.core.state
    if (!this.isOwner || state == null || this.core.completed || stoodDown(this.core)) {
      return undefined
    }
    const c = countStates(state.states)
    return { macroIndex: this.macroIndex, epoch: state.epoch, owner: multihashOfPeerId(this.core.self) as Uint8Array<ArrayBuffer>, open: c.open, done: c.done }
  }
}
