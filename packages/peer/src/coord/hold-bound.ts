import { OPEN } from './queue.js'
import type { Lease } from './leases.js'
import type { QueueState } from './queue.js'

// How long a queue owner believes another peer's locks without a result (docs/coordination.md, Held too long). Any
// valid lease may replace another, so a peer that re-writes a lease on an item without running it would otherwise
// keep the item locked, and its job unfinished, for as long as it stays online.

/** Runs of the run limit an item is allowed per place in its holder's line (its run, and a wait for a worker). */
export const HOLD_SLACK = 2

/** An honest peer holds at most two batches of a queue: its turn and the one it asked for ahead. */
export const MAX_BATCHES_HELD = 2

/** What a room member reads of the CRDT to bound another peer's hold (`QueueView` extends it). */
export interface HoldView {
  /** Item `index` has a result. */
  hasResult(index: number): boolean
  /** Who signed the first valid result of item `index`: a holder makes progress with its own results only. */
  resultBy?(index: number): string | undefined
  /** The MicroJob lease of item `index`, if one is written. */
  lease(index: number): Lease | undefined
  /** Whether `lease` is open at `now` (released, expired beyond the skew allowance, or dated too far ahead). */
  isOpen(lease: Lease, now: number): boolean
  /**
   * How long a lock is believed when `ahead` of its holder's locks were in line before it at first sight (`ahead` 0:
   * also how long a holder is believed without any result): {@link holdLimit}. Undefined: for ever.
   */
  holdLimitMs?(ahead: number): number
}

/** What the owner remembers of other peers' holds between heartbeats. */
export interface HoldMemory {
  /**
   * item -> holder -> when this peer first saw that holder hold it and how many of its locks were ahead of it then;
   * kept until the item has a result (not when it re-opens or moves), so a peer that lets an item lapse and takes
   * it again, or hands it to a second identity and back, does not start its bound again.
   */
  heldSince: Map<number, Map<string, { since: number, ahead: number }>>
  /** holder -> when this peer last saw it make progress here: its first lock seen, or its own result of an item it held. */
  progress: Map<string, number>
  /** item -> holders whose leases on it are not believed here any more (they held it past the bound). */
  distrusted: Map<number, Set<string>>
}

export function holdMemory (): HoldMemory {
  return { heldSince: new Map(), progress: new Map(), distrusted: new Map() }
}

/**
 * The bound of {@link HoldView.holdLimitMs}: `graceMs + HOLD_SLACK x runLimitMs x (1 + ahead)`, `ahead` at most what
 * {@link MAX_BATCHES_HELD} batches of `maxBatch` put ahead of an item (a holder does not choose its own bound by
 * holding more).
 */
export function holdLimit (graceMs: number, runLimitMs: number, maxBatch: number): (ahead: number) => number {
  const maxAhead = MAX_BATCHES_HELD * maxBatch - 1
  return (ahead) => graceMs + HOLD_SLACK * runLimitMs * (1 + Math.min(ahead, maxAhead))
}

/** The live lease of item `index` this peer believes: not open, and not written by a peer that held it too long. */
export function believedLease (view: Pick<HoldView, 'lease' | 'isOpen'>, memory: HoldMemory | undefined, index: number, now: number): Lease | undefined {
  const lease = view.lease(index)
  if (lease == null || view.isOpen(lease, now)) return undefined
  return isDistrusted(memory, index, lease.owner) ? undefined : lease
}

export function isDistrusted (memory: HoldMemory | undefined, index: number, holder: string): boolean {
  return memory?.distrusted.get(index)?.has(holder) === true
}

/**
 * Notes what the queue shows of other peers' holds: the first sight of each lock, a holder's progress (its own result
 * of an item it was seen holding). Every member does this on each snapshot it takes, not only the owner on its
 * heartbeat: the queue passes from member to member, and a member that first looked when the queue came to it would
 * start its bound then (each member in turn locking the item to the holder again for a whole bound). Returns the
 * other peers' locks by holder, in line order.
 */
function watchHolds (state: QueueState, view: Pick<HoldView, 'hasResult' | 'resultBy'>, self: string, now: number, memory: HoldMemory): Map<string, number[]> {
  forgetFinished(view, now, memory)
  const byHolder = locksByHolder(state, self)
  for (const holder of memory.progress.keys()) {
    if (!byHolder.has(holder)) memory.progress.delete(holder)
  }
  for (const [holder, indices] of byHolder) {
    if (!memory.progress.has(holder)) memory.progress.set(holder, now)
    for (const index of indices) sightOf(memory, index, holder, now, indices)
  }
  return byHolder
}

/**
 * The other peers' locks held past the bound, by holder, which this peer distrusts from now on: a holder that showed
 * no result of its own for `holdLimitMs(0)` (an honest one shows each within a run limit and the result flush) loses
 * every lock; a lock older than `holdLimitMs(ahead)` is lost too, however many results its holder shows meanwhile (a
 * peer that runs its batches and keeps one item). Every member judges on each snapshot it takes ({@link watchHolds}'
 * sights), so whoever owns the queue next already distrusts what the last owner re-opened; only an owner changes the
 * queue ({@link releaseOverheld}).
 */
export function overheld (state: QueueState, view: HoldView, self: string, now: number, memory: HoldMemory): Map<string, number[]> {
  const byHolder = watchHolds(state, view, self, now, memory)
  const found = new Map<string, number[]>()
  const limit = view.holdLimitMs
  if (limit == null) return found
  for (const [holder, indices] of byHolder) {
    const stalled = now - (memory.progress.get(holder) ?? now) > limit(0)
    for (const index of indices) {
      const seen = sightOf(memory, index, holder, now, indices)
      if (!stalled && now - seen.since <= limit(seen.ahead)) continue
      distrust(memory, index, holder)
      found.set(holder, [...found.get(holder) ?? [], index])
    }
  }
  return found
}

/** Owner, on heartbeat: the locks held past the bound ({@link overheld}) re-open. Returns them, by holder. */
export function releaseOverheld (state: QueueState, view: HoldView, self: string, now: number, memory: HoldMemory): Map<string, number[]> {
  const released = overheld(state, view, self, now, memory)
  for (const indices of released.values()) {
    for (const index of indices) {
      state.states[index] = OPEN
      state.locks.delete(index)
    }
  }
  return released
}

/** A holder's locks in line order: the oldest sight first, then by index (an honest holder runs a batch in index order). */
function locksByHolder (state: QueueState, self: string): Map<string, number[]> {
  const byHolder = new Map<string, number[]>()
  for (const [index, lock] of state.locks) {
    if (lock.holder === self) continue
    const list = byHolder.get(lock.holder) ?? []
    list.push(index)
    byHolder.set(lock.holder, list)
  }
  for (const list of byHolder.values()) list.sort((a, b) => a - b)
  return byHolder
}

/** When this peer first saw `holder` hold `index` (now, if not before; `ahead` = its other locks seen before it, or in this sight at a lower index). */
function sightOf (memory: HoldMemory, index: number, holder: string, now: number, indices: number[]): { since: number, ahead: number } {
  const byHolder = memory.heldSince.get(index) ?? new Map<string, { since: number, ahead: number }>()
  memory.heldSince.set(index, byHolder)
  let seen = byHolder.get(holder)
  if (seen == null) {
    const ahead = indices.filter(i => i !== index && (i < index || (memory.heldSince.get(i)?.get(holder)?.since ?? now) < now)).length
    seen = { since: now, ahead }
    byHolder.set(holder, seen)
  }
  return seen
}

/**
 * Items with a result are forgotten, and a holder seen holding one made progress if the result is its own (this peer
 * owns the queue now and then: the lock itself may have left the queue at another owner's meanwhile).
 */
function forgetFinished (view: Pick<HoldView, 'hasResult' | 'resultBy'>, now: number, memory: HoldMemory): void {
  for (const [index, holders] of memory.heldSince) {
    if (!view.hasResult(index)) continue
    memory.heldSince.delete(index)
    const writer = view.resultBy?.(index)
    if (writer != null && holders.has(writer)) memory.progress.set(writer, now)
  }
}

function distrust (memory: HoldMemory, index: number, holder: string): void {
  const set = memory.distrusted.get(index) ?? new Set<string>()
  set.add(holder)
  memory.distrusted.set(index, set)
}
