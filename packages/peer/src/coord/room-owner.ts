import { MAX_EARLY_REQUESTS } from './constants.js'
import { DONE, LOCKED, OPEN, countStates, fairBatch } from './queue.js'
import { believedLease, holdMemory, isDistrusted, releaseOverheld } from './hold-bound.js'
import type { HoldMemory, HoldView } from './hold-bound.js'
import type { QueueLock, QueueState } from './queue.js'

/**
 * What a queue owner reads of the CRDT about its MacroJob's items. The CRDT decides over the in-memory queue: a
 * result makes an item done, a live MicroJob lease makes it its holder's lock.
 */
export interface QueueView extends HoldView {
  /** Lease length plus skew allowance (ms): how long a lock without a lease, or a done mark without a result, is believed. */
  graceMs: number
}

/**
 * What the owner remembers between heartbeats: since when it saw a lock without a lease, a done mark without a
 * result, and other peers' holds (hold-bound.ts).
 */
export interface OwnerMemory extends HoldMemory {
  lockSeen: Map<number, number>
  doneSeen: Map<number, number>
}

export function ownerMemory (): OwnerMemory {
  return { lockSeen: new Map(), doneSeen: new Map(), ...holdMemory() }
}

/** Who asks the owner for a batch and how big it may be. */
export interface BatchRequest {
  /** The owner, locking for itself. */
  self: string
  want: number
  maxBatch: number
  now: number
  /** Other peers on the room's topic: members that have not asked yet still get their share of a last round. */
  roomPeers?: number
  /** The owner's memory: leases of peers that held an item past the hold bound are not believed. */
  memory?: OwnerMemory
}

/**
 * The open items the owner `req.self` may lock for itself now: a fair share (`fairBatch` over the members it knows:
 * pending requesters, lock holders and itself, and the room's other peers), skipping items the CRDT shows done or
 * held by another peer (those are marked in `state`, `changed` says so).
 */
export function pickBatch (state: QueueState, view: QueueView, req: BatchRequest): { indices: number[], changed: boolean } {
  const { self, now } = req
  const counts = countStates(state.states)
  if (counts.open === 0) return { indices: [], changed: false }
  const members = new Set<string>(state.pending)
  let ownLocked = 0
  for (const l of state.locks.values()) {
    members.add(l.holder)
    if (l.holder === self) ownLocked++
  }
  members.add(self)
  const n = fairBatch({
    size: state.states.length, open: counts.open, locked: counts.locked, ownLocked, members: members.size, roomPeers: req.roomPeers ?? 0
  }, req.want, req.maxBatch)
  const indices: number[] = []
  let changed = false
  for (let i = 0; i < state.states.length && indices.length < n; i++) {
    if (state.states[i] !== OPEN) continue
    if (view.hasResult(i)) {
      state.states[i] = DONE
      changed = true
      continue
    }
    const lease = believedLease(view, req.memory, i, now)
    if (lease != null && lease.owner !== self) {
      state.states[i] = LOCKED
      state.locks.set(i, { holder: lease.owner, leaseTerm: lease.term })
      changed = true
      continue
    }
    indices.push(i)
  }
  return { indices, changed }
}

/** Hands the queue to `to` (term + 1, `self` its previous owner); `to` leaves the pending list. */
export function handoff (state: QueueState, self: string, to: string): void {
  state.term++
  state.version++
  state.prevOwner = self
  state.owner = to
  state.pending = state.pending.filter(p => p !== to && p !== self)
}

/**
 * The requesters a claimant remembers while its claim settles and it has no queue yet: each once, in the order they
 * asked, at most MAX_EARLY_REQUESTS (a later one asks again when it sees the queue); a request for nothing withdraws.
 * The queue it opens has them pending, so a joiner's first turn needs no second request (room-serve.ts).
 */
export function earlyRequest (early: readonly string[], self: string, from: string, want: number): string[] {
  if (want <= 0) return early.filter(p => p !== from)
  if (from === self || early.includes(from) || early.length >= MAX_EARLY_REQUESTS) return [...early]
  return [...early, from]
}

/**
 * A member's request at the owner: the items it reports done (only its own locks) are marked done, and it joins
 * the pending list when it wants work, or leaves it when it wants nothing (a member leaving the room). Returns
 * whether the queue changed.
 */
export function applyRequest (state: QueueState, self: string, from: string, req: { done: number[], want: number }): boolean {
  let changed = false
  for (const index of req.done) {
    const lock = state.locks.get(index)
    if (index < state.states.length && state.states[index] === LOCKED && lock?.holder === from) {
      state.states[index] = DONE
      state.locks.delete(index)
      changed = true
    }
  }
  if (req.want > 0 && from !== self && !state.pending.includes(from)) {
    state.pending.push(from)
    changed = true
  } else if (req.want === 0 && state.pending.includes(from)) {
    // a member that wants nothing now (it left the room, or reports finished items only) is not handed the queue
    state.pending = state.pending.filter(p => p !== from)
    changed = true
  }
  if (changed) state.version++
  return changed
}

/**
 * The queue rebuilt from the CRDT alone (a new epoch after a claim or a failover): items with a result are done,
 * items with a live MicroJob lease are locked by its holder, the rest are open.
 */
export function rebuildQueue (size: number, view: QueueView, now: number, memory?: OwnerMemory): { states: Uint8Array, locks: Map<number, QueueLock> } {
  const states = new Uint8Array(size)
  const locks = new Map<number, QueueLock>()
  for (let i = 0; i < size; i++) {
    if (view.hasResult(i)) {
      states[i] = DONE
      continue
    }
    const l = believedLease(view, memory, i, now)
    if (l != null) {
      states[i] = LOCKED
      locks.set(i, { holder: l.owner, leaseTerm: l.term })
    }
  }
  return { states, locks }
}

/**
 * Owner, on heartbeat: re-syncs the queue with the CRDT, whatever happened meanwhile (lost snapshots, skipped or
 * failed items, a flood, overwritten records): a result makes an item done; a live lease of another peer makes it
 * that peer's lock; a lock whose lease expired or was released (this peer's own included) re-opens it; an item
 * marked done whose result has not appeared within a lease (plus skew) re-opens too. No item of an open MacroJob
 * stays unrun. Returns whether the queue changed, which done marks were re-opened and which items other peers held past
 * the hold bound (hold-bound.ts), by holder.
 */
export function reconcile (state: QueueState, view: QueueView, self: string, now: number, memory: OwnerMemory): { changed: boolean, reopened: number[], released: Map<string, number[]> } {
  let changed = false
  const reopened: number[] = []
  for (const [index, lock] of state.locks) {
    if (view.hasResult(index)) {
      state.states[index] = DONE
      state.locks.delete(index)
      changed = true
      continue
    }
    const lease = view.lease(index)
    if (lease != null && isDistrusted(memory, index, lease.owner)) {
      // the lease of a peer that held this item past the hold bound counts for nothing here
      state.states[index] = OPEN
      state.locks.delete(index)
      changed = true
    } else if (lease != null && (lease.owner !== lock.holder || lease.term !== lock.leaseTerm) && !view.isOpen(lease, now)) {
      // the lease moved (a rival queue, a failover): follow it, and re-open the item when that lease expires
      state.locks.set(index, { holder: lease.owner, leaseTerm: lease.term })
      changed = true
    } else if (lockExpired(view, memory, index, now)) {
      state.states[index] = OPEN
      state.locks.delete(index)
      changed = true
    }
  }
  for (let index = 0; index < state.states.length; index++) {
    const s = state.states[index]
    if (s === OPEN || (s === LOCKED && state.locks.has(index))) continue
    if (view.hasResult(index)) {
      if (s !== DONE) { state.states[index] = DONE; changed = true }
      memory.doneSeen.delete(index)
      continue
    }
    if (s === LOCKED) {
      // locked without a known holder: treat like a lock whose lease never arrived
      const lease = view.lease(index)
      state.locks.set(index, { holder: lease?.owner ?? self, leaseTerm: lease?.term ?? 0 })
      changed = true
      continue
    }
    const seen = memory.doneSeen.get(index)
    if (seen == null) {
      memory.doneSeen.set(index, now)
    } else if (now - seen > view.graceMs) {
      memory.doneSeen.delete(index)
      state.states[index] = OPEN
      changed = true
      reopened.push(index)
    }
  }
  for (const index of memory.lockSeen.keys()) {
    if (!state.locks.has(index)) memory.lockSeen.delete(index)
  }
  const released = releaseOverheld(state, view, self, now, memory)
  if (released.size > 0) changed = true
  if (changed) state.version++
  return { changed, reopened, released }
}

/**
 * A lock is given up when its MicroJob lease in the CRDT is open, or, when the lease never arrived, when the lock
 * is older (as seen here) than a lease plus the skew allowance. A lease not yet synced is not "open".
 */
function lockExpired (view: QueueView, memory: OwnerMemory, index: number, now: number): boolean {
  const lease = view.lease(index)
  if (lease != null) return view.isOpen(lease, now)
  const seen = memory.lockSeen.get(index)
  if (seen == null) {
    memory.lockSeen.set(index, now)
    return false
  }
  return now - seen > view.graceMs
}
