import { logger } from '@libp2p/logger'
import { microKey } from './keys.js'
import { LOCKED, countStates } from './queue.js'
import { checkComplete } from './room-complete.js'
import { isOwner, publishState, satisfy } from './room-core.js'
import { outvotingLease, supersedingLease } from './room-failover.js'
import { applyRequest, earlyRequest, handoff, pickBatch, rebuildQueue, reconcile } from './room-owner.js'
import type { CoordMessage } from './codec.js'
import type { Lease } from './leases.js'
import type { RoomCore } from './room-core.js'
import type { LockedItem } from './room-types.js'

const log = logger('jobmesh:room')

// The owner half of a room: creates the queue, serves it (locks a batch for itself, hands it to the first pending
// requester, publishes) and keeps it in step with the CRDT. The queue rules are the pure functions of room-owner.ts.

/**
 * Creates the queue as owner under a MacroJob lease this peer holds (`lease.term` becomes the epoch),
 * rebuilt from the CRDT: items with a result are done, items with a live MicroJob lease are locked by its
 * holder, the rest are open.
 */
export function createQueue (room: RoomCore, lease: Lease): void {
  const { states, locks } = rebuildQueue(room.size, room.view, room.clock(), room.memory)
  const macroLease = room.components.macroLeases.get(room.macroKey)
  const raw = macroLease?.term === lease.term && macroLease.owner === lease.owner ? room.components.macroLeases.raw(room.macroKey) : undefined
  const pending = (room.state?.pending ?? []).filter(p => p !== room.self && p !== room.state?.owner)
  const early = room.early.filter(p => p !== room.self && !pending.includes(p))
  room.early = []
  room.state = {
    macroIndex: room.macroIndex,
    epoch: lease.term,
    term: 0,
    owner: room.self,
    prevOwner: room.self,
    version: 0,
    states,
    locks,
    pending: [...pending, ...early],
    macroLease: raw
  }
  room.lastMacroRenew = room.clock()
  room.epochRoot = room.self
  room.ownersSeen.add(room.self)
  log('%s room %d: created epoch %d (%o)', room.self.slice(-6), room.macroIndex, lease.term, countStates(states))
  room.dispatch('ownership', room.state)
  if (pending.length === 0 && early.length > 0 && room.waiter.want == null) {
    // only joiners that asked while the claim settled: the queue goes out with them pending, and this peer's first
    // `next` locks its own batch and hands the queue to the first of them in one snapshot
    publishState(room)
    checkComplete(room)
    return
  }
  serve(room)
}

/** Owner: lock a batch for self if wanting, hand off to the first pending requester, publish. */
export function serve (room: RoomCore): void {
  const state = room.state
  if (state == null || !isOwner(room) || room.closed) {
    return
  }
  if (stoodDown(room)) {
    // a failover claimed a later epoch, or the CRDT kept another peer's claim of this one: this queue stops at once
    // (no locks, no handoff, no heartbeat); the other epoch's snapshots make this peer a member of it
    satisfy(room, [])
    return
  }
  const want = room.waiter.want
  if (want != null) {
    satisfy(room, lockBatch(room, want))
  }
  const next = state.pending.find(p => p !== room.self)
  if (next != null && room.waiter.want == null) {
    handOffTo(room, next)
  } else {
    state.pending = state.pending.filter(p => p !== room.self)
  }
  publishState(room)
  checkComplete(room)
}

function lockBatch (room: RoomCore, want: number): LockedItem[] {
  const state = room.state
  if (state == null) {
    return []
  }
  if (countStates(state.states).open === 0) {
    return []
  }
  // a later epoch exists in the CRDT (a failover claimed the MacroJob): this queue is dead, lock nothing more
  const macroLease = room.components.macroLeases.get(room.macroKey)
  if (macroLease != null && macroLease.term > state.epoch) {
    log('%s room %d: epoch %d superseded by lease term %d, not locking', room.self.slice(-6), room.macroIndex,
      state.epoch, macroLease.term)
    return []
  }
  const { indices, changed } = pickBatch(state, room.view, {
    self: room.self, want, maxBatch: room.maxBatch, now: room.clock(), roomPeers: room.components.pubsub.getSubscribers?.(room.topic).length, memory: room.memory
  })
  if (indices.length === 0) {
    if (changed) state.version++
    return []
  }
  const keys = indices.map(i => microKey(room.macroIndex, i))
  let leases = new Map<string, Lease>()
  const lock = (): void => { leases = room.components.microLeases.takeMany(keys) }
  if (room.components.lockWith != null) room.components.lockWith(lock)
  else lock()
  const items: LockedItem[] = []
  for (const i of indices) {
    const lease = leases.get(microKey(room.macroIndex, i))
    const leaseTerm = lease?.term ?? 1
    state.states[i] = LOCKED
    state.locks.set(i, { holder: room.self, leaseTerm })
    items.push({ macroIndex: room.macroIndex, index: i, leaseTerm })
  }
  state.version++
  return items
}

export function handOffTo (room: RoomCore, to: string): void {
  if (room.state == null) {
    return
  }
  handoff(room.state, room.self, to)
  log('%s room %d: handed epoch %d term %d to %s (%o)', room.self.slice(-6), room.macroIndex, room.state.epoch, room.state.term,
    to.slice(-6), countStates(room.state.states))
  room.components.metrics.handoffs++
  room.ownersSeen.add(to)
  // this peer had the queue until now: the new owner's silence counts from here, not from whatever this peer last
  // heard as a member (an owner that held the queue longer than the owner timeout would fail over its successor
  // unless the successor's first snapshot came within one tick)
  room.silence.heard(room.clock())
}

/** Serves once on the next turn of the event loop (requests of one tick are answered together). */
export function scheduleFlush (room: RoomCore): void {
  if (room.flushScheduled) {
    return
  }
  room.flushScheduled = true
  setImmediate(() => {
    room.flushScheduled = false
    if (isOwner(room)) {
      serve(room)
    }
  })
}

export function onRequest (room: RoomCore, from: string, req: NonNullable<CoordMessage['request']>): void {
  const state = room.state
  log.trace('%s room %d: request from %s for %d (%s)', room.self.slice(-6), room.macroIndex, from.slice(-6), req.want,
    state == null ? (room.claiming ? 'claiming' : 'no queue') : isOwner(room) ? 'owner' : 'member')
  if (state == null) {
    // a joiner that chose this room while its claim settles: remembered for the queue this peer is about to open
    if (room.claiming) room.early = earlyRequest(room.early, room.self, from, req.want)
    return
  }
  if (isOwner(room) && applyRequest(state, room.self, from, { done: req.done.filter(i => i < room.size), want: req.want })) {
    scheduleFlush(room)
  }
}

/** Owner, on heartbeat: the queue re-synced with the CRDT (room-owner.ts `reconcile`). */
export function reconcileWithCrdt (room: RoomCore): void {
  if (room.state == null) {
    return
  }
  const { reopened, released } = reconcile(room.state, room.view, room.self, room.clock(), room.memory)
  for (const index of reopened) {
    log('%s room %d: item %d was marked done but has no result: re-opened', room.self.slice(-6), room.macroIndex, index)
  }
  for (const [holder, indices] of released) {
    room.components.metrics.holdsReleased += indices.length
    log('%s room %d: %s held items %o past the hold bound without a result: re-opened, its leases on them no longer believed',
      room.self.slice(-6), room.macroIndex, holder, indices)
  }
}

/**
 * Whether the queue this peer owns has lost its MacroJob lease: the CRDT shows a live lease of a later epoch held by
 * another peer (a failover), or this epoch's lease held by another peer than the epoch's root (two claims of one
 * term, the CRDT kept the other's). Its owner serves it no more.
 */
export function stoodDown (room: RoomCore): boolean {
  if (room.state == null) return false
  const lease = room.components.macroLeases.get(room.macroKey)
  return supersedingLease(lease, room.state.epoch, room.self, (l) => room.components.leases.isOpen(l)) != null ||
    outvotingLease(lease, room.state.epoch, room.epochRoot) != null
}
