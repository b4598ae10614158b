import { describe, expect, it } from 'vitest'
import { holdLimit, overheld } from '../../src/coord/hold-bound.js'
import { DONE, LOCKED, OPEN } from '../../src/coord/queue.js'
import { applyRequest, ownerMemory, pickBatch, rebuildQueue, reconcile } from '../../src/coord/room-owner.js'
import { GRACE_MS, LEASE_MS, crdt, lease, queue } from './room-fixtures.js'
import type { OwnerMemory, QueueView } from '../../src/coord/room-owner.js'
import type { QueueState } from '../../src/coord/queue.js'

// The owner role's hold bound (hold-bound.ts) on a fake clock: how long another peer's locks are believed without a
// result, whatever leases it keeps writing.

const RUN_MS = 5_000
const MAX_BATCH = 4
const limit = holdLimit(GRACE_MS, RUN_MS, MAX_BATCH)
/** A holder showing no result: 17 s + 2 x 5 s. */
const STALL_MS = limit(0)

interface Owner {
  view: QueueView & ReturnType<typeof crdt>
  memory: OwnerMemory
  state: QueueState
  lockTo(i: number, holder: string, term: number, t: number): void
  /** A lease re-written by `holder` (a new term), as a peer that never runs the item does. */
  rewrite(i: number, holder: string, t: number): void
  /** A result of item `i` signed by `by`. */
  resultOf(i: number, by: string): void
  reconcileAt(t: number): void
}

function owner (size: number): Owner {
  const writers = new Map<number, string>()
  const view = { ...crdt(), holdLimitMs: limit, resultBy: (i: number) => writers.get(i) }
  const memory = ownerMemory()
  const state = queue(size)
  let term = 100
  return {
    view,
    memory,
    state,
    lockTo (i, holder, leaseTerm, t) {
      state.states[i] = LOCKED
      state.locks.set(i, { holder, leaseTerm })
      view.leases.set(i, lease(holder, leaseTerm, t + LEASE_MS))
    },
    rewrite (i, holder, t) { view.leases.set(i, lease(holder, ++term, t + LEASE_MS)) },
    resultOf (i, by) { view.results.add(i); writers.set(i, by); view.leases.delete(i) },
    reconcileAt (t) { reconcile(state, view, 'a', t, memory) }
  }
}

describe('the hold bound (hold-bound.ts)', () => {
  it('a peer that re-writes its lease and shows no result loses the item after the grace and two run limits; its leases on it then count for nothing here', () => {
    const o = owner(8)
    o.lockTo(0, 'b', 1, 0)
    let t = 0
    while (t <= 2_000 + STALL_MS) {
      t += 2_000
      o.rewrite(0, 'b', t)
      o.reconcileAt(t)
      // first seen at 2 s
      if (t - 2_000 <= STALL_MS) expect(o.state.states[0]).toBe(LOCKED)
    }
    expect(o.state.states[0]).toBe(OPEN)
    // b's live lease no longer locks item 0 here: the owner's next batch takes it, a rebuild (a failover) leaves it
    // open, and a lock that follows it re-opens
    o.rewrite(0, 'b', t)
    expect(pickBatch(o.state, o.view, { self: 'a', want: 8, maxBatch: 8, now: t + 1, memory: o.memory }).indices).toContain(0)
    expect(rebuildQueue(8, o.view, t + 1, o.memory).locks.has(0)).toBe(false)
    o.state.states[0] = LOCKED
    o.state.locks.set(0, { holder: 'a', leaseTerm: 200 })
    o.reconcileAt(t + 2)
    expect(o.state.states[0]).toBe(OPEN)
  })

  it('an honest holder running batches one after another keeps them: results every few seconds, two batches held at a time', () => {
    const o = owner(40)
    // c's turns of 4 MicroJobs of 4 s (the run limit 5 s), each asked ahead before the last ends: batch n locked at
    // 16 n - 4 s, its results written together at 16 (n + 1) s
    let next = 0
    const batches: number[][] = []
    for (let t = 0; t <= 120_000; t += 1_000) {
      if (t % 16_000 === 12_000 || t === 0) {
        const batch = [next, next + 1, next + 2, next + 3].filter(i => i < 40)
        next += 4
        for (const i of batch) o.lockTo(i, 'c', 1, t)
        batches.push(batch)
      }
      if (t > 0 && t % 16_000 === 0) for (const i of batches.shift() ?? []) o.resultOf(i, 'c')
      for (const [i, l] of o.state.locks) o.view.leases.set(i, lease('c', l.leaseTerm, t + LEASE_MS))
      o.reconcileAt(t)
      for (const i of o.state.locks.keys()) expect(o.state.states[i]).toBe(LOCKED)
      expect(o.memory.distrusted.size).toBe(0)
    }
    expect([...o.state.states].filter(s => s === DONE).length).toBeGreaterThan(20)
  })

  it('a holder that shows results and keeps one item loses that item after its place in line allows', () => {
    const o = owner(40)
    // d holds item 0 and runs batches of 4 beside it (each batch's results 8 s after its lock, reported done)
    o.lockTo(0, 'd', 1, 0)
    let next = 1
    let t = 0
    let lost: number | undefined
    for (; t <= 200_000 && lost == null; t += 2_000) {
      if (t % 8_000 === 0) {
        for (const i of [...o.state.locks.keys()].filter(i => i !== 0)) {
          o.resultOf(i, 'd')
          applyRequest(o.state, 'a', 'd', { done: [i], want: 4 })
        }
        for (let k = 0; k < 4 && next < 40; k++) o.lockTo(next++, 'd', 1, t)
      }
      o.rewrite(0, 'd', t)
      o.reconcileAt(t)
      if (o.state.states[0] === OPEN) lost = t
    }
    // item 0 was first in d's line: believed 17 s + 2 x 5 s from its first sight at 0 s, however many results d shows
    expect(lost).toBeDefined()
    expect(lost).toBeGreaterThan(limit(0))
    expect(lost).toBeLessThanOrEqual(limit(0) + 2_000)
  })

  it('a lease that lapses for a moment, or moves to a second identity and back, does not start the bound again', () => {
    const o = owner(8)
    let t = 0
    let holder = 'b'
    // b and b2 take turns on item 0 every 6 s, and it lapses (open, the owner re-opens it) between turns
    for (; t <= 60_000 && o.memory.distrusted.get(0)?.size !== 2; t += 1_000) {
      if (t % 6_000 === 0) {
        holder = holder === 'b' ? 'b2' : 'b'
        o.lockTo(0, holder, 1, t)
      } else if (t % 6_000 === 5_000) {
        o.view.leases.set(0, lease(holder, 1, 0)) // released
      } else {
        o.rewrite(0, holder, t)
      }
      o.reconcileAt(t)
    }
    // each identity is believed for one bound from its first sight (b2 at 0 s, b at 6 s): both distrusted by then
    expect(o.memory.distrusted.get(0)).toEqual(new Set(['b', 'b2']))
    expect(t).toBeLessThanOrEqual(6_000 + STALL_MS + 2_000)
  })

  /**
   * Peer e leases every item of a 40-item queue and re-writes each lease every second until the owner has re-opened
   * them all (`each`: what else happens that second); returns when that was, or undefined after 60 s.
   */
  function leaseAll (o: Owner, each: (t: number) => void = () => {}): number | undefined {
    for (let i = 0; i < 40; i++) o.lockTo(i, 'e', 1, 0)
    for (let t = 0; t <= 60_000; t += 1_000) {
      each(t)
      for (let i = 0; i < 40; i++) if (o.state.locks.get(i)?.holder === 'e') o.rewrite(i, 'e', t)
      o.reconcileAt(t)
      if (o.state.locks.size === 0) return t
    }
    return undefined
  }

  it('a peer that leases a whole MacroJob and runs none loses all of it at once after the grace and two run limits', () => {
    expect(leaseAll(owner(40))).toBeLessThanOrEqual(STALL_MS + 1_000)
  })

  it('results others write on items a peer held are not its progress: a peer that leases a MacroJob loses the rest when it shows none of its own', () => {
    const o = owner(40)
    // every second another peer runs one item e holds and writes its result (e keeps the rest)
    expect(leaseAll(o, () => { o.resultOf([...o.state.locks.keys()][0], 'f') })).toBeLessThanOrEqual(STALL_MS + 1_000)
  })

  it('a member judges from the snapshots it sees: when the queue comes to it after the owner re-opened the items, it does not lock them to their holder again', () => {
    const o = owner(8)
    for (let i = 0; i < 8; i++) o.lockTo(i, 'e', 1, 0)
    // member m sees the same queue (the owner's snapshots and heartbeats) and judges on its own tick, never owning it
    const m = ownerMemory()
    let t = 0
    for (; t <= 60_000 && o.state.locks.size > 0; t += 500) {
      for (let i = 0; i < 8; i++) if (o.state.locks.has(i)) o.rewrite(i, 'e', t)
      overheld(o.state, o.view, 'm', t, m)
      o.reconcileAt(t)
    }
    expect(o.state.locks.size).toBe(0)
    // the queue (all open, e's leases live and re-written) is handed to m: its batch takes its share of them, and
    // none becomes e's lock again
    for (let i = 0; i < 8; i++) o.rewrite(i, 'e', t)
    const { indices } = pickBatch(o.state, o.view, { self: 'm', want: 8, maxBatch: 8, now: t, memory: m })
    expect(indices).toEqual([0, 1, 2, 3])
    expect([...o.state.states]).toEqual(new Array(8).fill(OPEN))
  })

  it('places in line count at most two batches: holding more does not lengthen the bound', () => {
    expect(limit(0)).toBe(GRACE_MS + 2 * RUN_MS)
    expect(limit(7)).toBe(GRACE_MS + 2 * RUN_MS * 8)
    expect(limit(39)).toBe(limit(7))
  })

  it('without a bound (no run limit known), a lock holds as long as its lease', () => {
    const o = owner(1)
    const view = { ...o.view, holdLimitMs: undefined }
    o.lockTo(0, 'b', 1, 0)
    o.view.leases.set(0, lease('b', 1, 10_000_000))
    reconcile(o.state, view, 'a', 0, o.memory)
    reconcile(o.state, view, 'a', 1_000_000, o.memory)
    expect(o.state.states[0]).toBe(LOCKED)
  })
})
