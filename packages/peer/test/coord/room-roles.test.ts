import { generateKeyPair } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { leases } from '../../src/coord/leases.js'
import { LeaseRecord } from '../../src/coord/pb/coord.js'
import { DONE, LOCKED, OPEN, judge } from '../../src/coord/queue.js'
import { FutureSnapshots, epochValid, yieldsTo } from '../../src/coord/room-member.js'
import { applyRequest, earlyRequest, handoff, ownerMemory, pickBatch, rebuildQueue, reconcile } from '../../src/coord/room-owner.js'
import { TurnWaiter } from '../../src/coord/room-waiter.js'
import { createQueue, handOffTo, onRequest, serve } from '../../src/coord/room-serve.js'
import { OwnerSilence } from '../../src/coord/owner-silence.js'
import type { RoomCore } from '../../src/coord/room-core.js'
import { claimNextEpoch, ownerGossipAt, supersedingLease } from '../../src/coord/room-failover.js'
import { claimPeers, claimQueue, releaseUnserved, unservedLease } from '../../src/coord/room-claim.js'
import { CONFIRM_ALL_MAX_PEERS, MAX_EARLY_REQUESTS } from '../../src/coord/constants.js'
import { recordSigner, recordVerifier } from '../../src/coord/signing.js'
import type { Lease } from '../../src/coord/leases.js'
import type { QueueState } from '../../src/coord/queue.js'
import type { EpochCheck } from '../../src/coord/room-member.js'
import type { QueueView } from '../../src/coord/room-owner.js'

const LEASE_MS = 15_000
const GRACE_MS = 17_000

/** A CRDT view over plain maps: results by index, leases by index; a lease is open after expiresAt (no skew here). */
function crdt (): QueueView & { results: Set<number>, leases: Map<number, Lease> } {
  const results = new Set<number>()
  const leases = new Map<number, Lease>()
  return {
    results,
    leases,
    hasResult: (i) => results.has(i),
    lease: (i) => leases.get(i),
    isOpen: (lease, now) => lease.expiresAt === 0 || now > lease.expiresAt,
    graceMs: GRACE_MS
  }
}

const lease = (owner: string, term: number, expiresAt: number): Lease => ({ owner, term, expiresAt }) as Lease

function queue (size: number, overrides: Partial<QueueState> = {}): QueueState {
  return {
    macroIndex: 0, epoch: 1, term: 0, owner: 'a', prevOwner: 'a', version: 0,
    states: new Uint8Array(size), locks: new Map(), pending: [], ...overrides
  }
}

describe('room owner role (room-owner.ts)', () => {
  it('locks a fair share of open items, the CRDT deciding: a result is done, another peer\'s live lease is its lock', () => {
    const view = crdt()
    view.results.add(0)
    view.leases.set(1, lease('b', 2, 50_000))
    view.leases.set(2, lease('c', 1, 500)) // expired: open again
    const state = queue(40, { pending: ['b', 'c'] })
    const { indices, changed } = pickBatch(state, view, { self: 'a', want: 16, maxBatch: 16, now: 1_000 })
    // 40 open, 3 members (a and the two pending): a large queue's even split, ceil(40 / 3) = 14 (items 0 and 1 skipped)
    expect(indices).toEqual(Array.from({ length: 14 }, (_, i) => i + 2))
    expect(changed).toBe(true)
    expect(state.states[0]).toBe(DONE)
    expect(state.states[1]).toBe(LOCKED)
    expect(state.locks.get(1)).toEqual({ holder: 'b', leaseTerm: 2 })
  })

  it('counts the room\'s subscribers as members of a large queue; a small one gives a lone first owner half', () => {
    expect(pickBatch(queue(64), crdt(), { self: 'a', want: 64, maxBatch: 64, now: 1_000 }).indices).toHaveLength(64)
    // 4 more peers on the room's topic: ceil(64 / 5)
    expect(pickBatch(queue(64), crdt(), { self: 'a', want: 64, maxBatch: 64, now: 1_000, roomPeers: 4 }).indices).toHaveLength(13)
    expect(pickBatch(queue(16), crdt(), { self: 'a', want: 64, maxBatch: 64, now: 1_000, roomPeers: 4 }).indices).toHaveLength(8)
  })

  it('hands off: term + 1, the requester owns, the old owner is its previous owner and nobody pending twice', () => {
    const state = queue(4, { pending: ['b', 'c'] })
    handoff(state, 'a', 'b')
    expect(state).toMatchObject({ term: 1, version: 1, owner: 'b', prevOwner: 'a', pending: ['c'] })
  })

  it('an owner that held the queue longer than the owner timeout hands off without suspecting its successor at once', () => {
    let now = 0
    const silence = new OwnerSilence({ ownerTimeoutMs: 3_000, jitterMs: 0, tickMs: 100, now })
    const room = {
      self: 'a',
      state: queue(4, { pending: ['b'] }),
      silence,
      clock: () => now,
      ownersSeen: new Set<string>(),
      components: { metrics: { handoffs: 0 } }
    } as unknown as RoomCore
    // owner for 10 s (its ticks show no stall), then a member asks and gets the queue
    for (now = 100; now <= 10_000; now += 100) silence.tick(now)
    handOffTo(room, 'b')
    expect(room.state?.owner).toBe('b')
    // one tick later the successor's first snapshot may not have arrived yet: the queue is not silent
    now += 100
    silence.tick(now)
    expect(silence.decide(now)).toBe('alive')
    // and it is once the successor says nothing for the owner timeout
    for (let t = 0; t < 31; t++) { now += 100; silence.tick(now) }
    expect(silence.decide(now)).toBe('suspect')
  })

  it('a member\'s request marks only its own locks done and puts it in the pending list once', () => {
    const state = queue(4)
    state.states[1] = LOCKED
    state.locks.set(1, { holder: 'b', leaseTerm: 1 })
    state.states[2] = LOCKED
    state.locks.set(2, { holder: 'c', leaseTerm: 1 })
    expect(applyRequest(state, 'a', 'b', { done: [1, 2, 9], want: 8 })).toBe(true)
    expect([...state.states]).toEqual([OPEN, DONE, LOCKED, OPEN])
    expect(state.pending).toEqual(['b'])
    expect(applyRequest(state, 'a', 'b', { done: [], want: 8 })).toBe(false)
    expect(applyRequest(state, 'a', 'a', { done: [], want: 8 })).toBe(false)
    // b leaves the room (a request for nothing): it is no longer pending, so the queue is not handed to it
    expect(applyRequest(state, 'a', 'b', { done: [], want: 0 })).toBe(true)
    expect(state.pending).toEqual([])
    expect(applyRequest(state, 'a', 'b', { done: [], want: 0 })).toBe(false)
  })

  it('failover rebuild: results done, live leases locked by their holders, expired ones open', () => {
    const view = crdt()
    view.results.add(3)
    view.leases.set(0, lease('b', 4, 20_000))
    view.leases.set(1, lease('c', 2, 9_000))
    const { states, locks } = rebuildQueue(4, view, 10_000)
    expect([...states]).toEqual([LOCKED, OPEN, OPEN, DONE])
    expect([...locks]).toEqual([[0, { holder: 'b', leaseTerm: 4 }]])
  })

  it('reconcile on a fake clock: a lock follows a moved lease, re-opens when its lease expires or never arrives within a lease + skew, a done mark without a result re-opens after that too', () => {
    const view = crdt()
    const memory = ownerMemory()
    const state = queue(4)
    for (const i of [0, 1, 2]) {
      state.states[i] = LOCKED
      state.locks.set(i, { holder: 'b', leaseTerm: 1 })
    }
    state.states[3] = DONE // reported done by a member, its result not synced
    view.leases.set(0, lease('c', 2, 30_000)) // a rival took item 0
    view.leases.set(1, lease('b', 1, LEASE_MS)) // item 1's lease, expires at 15 s
    // item 2: no lease synced yet
    let t = 1_000
    expect(reconcile(state, view, 'a', t, memory).changed).toBe(true)
    expect(state.locks.get(0)).toEqual({ holder: 'c', leaseTerm: 2 })
    expect([...state.states]).toEqual([LOCKED, LOCKED, LOCKED, DONE])
    t = 16_000 // item 1's lease ran out
    reconcile(state, view, 'a', t, memory)
    expect([...state.states]).toEqual([LOCKED, OPEN, LOCKED, DONE])
    t = 1_000 + GRACE_MS + 1 // the lease of item 2 never came, and item 3's result neither
    const { reopened } = reconcile(state, view, 'a', t, memory)
    expect([...state.states]).toEqual([LOCKED, OPEN, OPEN, OPEN])
    expect(reopened).toEqual([3])
    // a result arrives for item 0: done, whoever held it
    view.results.add(0)
    reconcile(state, view, 'a', t + 1, memory)
    expect(state.states[0]).toBe(DONE)
    expect(state.locks.size).toBe(0)
  })
})

describe('room member role (room-member.ts)', () => {
  async function epochSigner (): Promise<{ peer: string, sign(term: number): Uint8Array }> {
    const key = await generateKeyPair('Ed25519')
    const peer = peerIdFromPrivateKey(key).toString()
    const signer = recordSigner(key, peer)
    return { peer, sign: (term) => signer.sign('jobmesh/macro/job/0', LeaseRecord.encode({ term, expiresAt: 99n })) }
  }

  it('a new epoch stands on a signed MacroJob lease of that term, from its opener, or on the CRDT', async () => {
    const a = await epochSigner()
    const b = await epochSigner()
    const inCrdt: { lease?: Lease } = {}
    const check: EpochCheck = { verifier: recordVerifier(), domain: 'jobmesh/macro/job/0', crdtLease: () => inCrdt.lease }
    const next = queue(4, { epoch: 3, owner: a.peer, prevOwner: a.peer, macroLease: a.sign(3) })
    expect(epochValid(check, next, a.peer)).toBe(true)
    expect(epochValid(check, { ...next, macroLease: a.sign(2) }, a.peer)).toBe(false) // another term
    expect(epochValid(check, next, b.peer)).toBe(false) // term 0 must come from the lease's signer
    expect(epochValid(check, { ...next, macroLease: undefined }, a.peer)).toBeUndefined() // not synced yet
    inCrdt.lease = lease(a.peer, 3, 99)
    expect(epochValid(check, { ...next, macroLease: undefined }, a.peer)).toBe(true)
  })

  it('of two owners of one epoch (concurrent claims) the lower PeerId wins everywhere', async () => {
    const [x, y] = [await epochSigner(), await epochSigner()].sort((p, q) => p.peer < q.peer ? -1 : 1)
    const check: EpochCheck = { verifier: recordVerifier(), domain: 'jobmesh/macro/job/0', crdtLease: () => undefined }
    const fromY = queue(4, { epoch: 5, owner: y.peer, prevOwner: y.peer, macroLease: y.sign(5) })
    const fromX = queue(4, { epoch: 5, owner: x.peer, prevOwner: x.peer, macroLease: x.sign(5) })
    expect(yieldsTo(check, fromY, y.peer, fromX, x.peer)).toBe(true)
    expect(yieldsTo(check, fromX, x.peer, fromY, y.peer)).toBe(false)
  })

  it('buffers snapshots after a gap until the gap fills, then after a heartbeat takes the newest', () => {
    const future = new FutureSnapshots(16)
    const at = (term: number): QueueState => queue(4, { term, owner: `p${term}`, prevOwner: `p${term - 1}` })
    const current = at(1)
    const judgeFrom = (cur: QueueState) => (s: QueueState, from: string) => judge(cur, s, from, () => true)
    // handoff snapshots, each published by the owner handing off (its prevOwner)
    future.add(at(3), 'p2', 1_000)
    future.add(at(4), 'p3', 1_100)
    // term 2 is missing: nothing continues the chain yet
    expect(future.next(current, judgeFrom(current), 1_200)).toBeUndefined()
    // the gap fills (term 2 accepted by the room): term 3 continues it
    const two = at(2)
    expect(future.next(two, judgeFrom(two), 1_300)?.term).toBe(3)
    expect(future.size).toBe(1)
    // no continuation of term 1 for a heartbeat: the newest is taken and the buffer emptied
    const other = new FutureSnapshots(16)
    other.add(at(4), 'p3', 1_000)
    other.add(at(6), 'p5', 1_500)
    expect(other.next(current, judgeFrom(current), 2_000, 1_000)).toBeUndefined()
    expect(other.next(current, judgeFrom(current), 2_500, 1_000)?.term).toBe(6)
    expect(other.size).toBe(0)
  })
})

describe('a room member\'s wait for its turn (room-waiter.ts)', () => {
  /** A signal that counts its abort listeners. */
  function countingSignal (): { signal: AbortSignal, controller: AbortController, listeners(): number } {
    const controller = new AbortController()
    let n = 0
    const add = controller.signal.addEventListener.bind(controller.signal)
    const remove = controller.signal.removeEventListener.bind(controller.signal)
    controller.signal.addEventListener = ((...args: Parameters<typeof add>) => { n++; add(...args) }) as typeof add
    controller.signal.removeEventListener = ((...args: Parameters<typeof remove>) => { n--; remove(...args) }) as typeof remove
    return { signal: controller.signal, controller, listeners: () => n }
  }

  it('leaves no abort listener behind, however a wait ends (the signal outlives every turn)', async () => {
    const waiter = new TurnWaiter()
    const s = countingSignal()
    for (let i = 0; i < 20; i++) {
      const turn = waiter.wait(16, { signal: s.signal })
      expect(waiter.want).toBe(16)
      if (i % 2 === 0) waiter.satisfy([{ macroIndex: 0, index: i, leaseTerm: 1 }])
      else waiter.reject(new Error('room closed'))
      await turn.catch(() => {})
    }
    expect(s.listeners()).toBe(0)
    expect(waiter.want).toBeUndefined()
  })

  it('one wait at a time; an abort ends it with the signal\'s reason and frees the slot', async () => {
    const waiter = new TurnWaiter()
    const s = countingSignal()
    const turn = waiter.wait(0, { signal: s.signal })
    expect(waiter.want).toBe(1) // at least one
    expect(() => waiter.wait(4)).toThrow('already waiting')
    s.controller.abort(new Error('stopped'))
    await expect(turn).rejects.toThrow('stopped')
    expect(waiter.want).toBeUndefined()
    waiter.satisfy([]) // nobody waits: nothing happens
  })
})

describe('room failover role (room-failover.ts)', () => {
  const open = (now: number) => (l: Lease): boolean => l.expiresAt === 0 || now > l.expiresAt

  it('the owner\'s other gossip counts only while its MacroJob lease is live', () => {
    const seen = (): number => 4_000
    expect(ownerGossipAt('a', lease('a', 2, 10_000), open(5_000), seen)).toBe(4_000)
    expect(ownerGossipAt('a', lease('a', 2, 10_000), open(11_000), seen)).toBeUndefined() // lapsed: a restarted PeerId
    expect(ownerGossipAt('a', lease('b', 3, 10_000), open(5_000), seen)).toBeUndefined() // another peer's epoch
    expect(ownerGossipAt(undefined, lease('a', 2, 10_000), open(5_000), seen)).toBeUndefined()
  })

  it('a queue is superseded by a live lease of a later epoch held by another peer', () => {
    expect(supersedingLease(lease('b', 4, 10_000), 3, 'a', open(5_000))?.owner).toBe('b')
    expect(supersedingLease(lease('b', 3, 10_000), 3, 'a', open(5_000))).toBeUndefined()
    expect(supersedingLease(lease('a', 4, 10_000), 3, 'a', open(5_000))).toBeUndefined()
    expect(supersedingLease(lease('b', 4, 10_000), 3, 'a', open(12_000))).toBeUndefined()
  })

  it('claims the epoch above both the one seen and the CRDT\'s, over the silent owner\'s live lease', async () => {
    const now = 10_000
    const key = await generateKeyPair('Ed25519')
    const owner = await generateKeyPair('Ed25519')
    const id = peerIdFromPrivateKey(key).toString()
    const ownerId = peerIdFromPrivateKey(owner).toString()
    const config = { leaseMs: 15_000, skewMs: 2_000, settleMs: 0 }
    const doc = new Y.Doc()
    const mine = leases({ signer: recordSigner(key, id), verifier: recordVerifier(), clock: () => now }, config).table(doc.getMap('macro'), 'jobmesh/macro/j')
    const theirs = leases({ signer: recordSigner(owner, ownerId), verifier: recordVerifier(), clock: () => now }, config).table(doc.getMap('macro'), 'jobmesh/macro/j')
    theirs.take('0', { minTerm: 2 })
    const won = await claimNextEpoch(mine, '0', 5, new AbortController().signal)
    expect(won).toMatchObject({ owner: id, term: 6 })
    const next = await claimNextEpoch(theirs, '0', 1, new AbortController().signal)
    expect(next.term).toBe(7) // the CRDT's term 6 is above the epoch it saw
  })
})

describe('room claiming role (room-claim.ts)', () => {
  /** A room of MacroJob 0 over a real Y.Doc and signed leases, on a fake clock; `rival` writes as another peer. */
  async function claimRoom () {
    const clock = { now: 10_000 }
    const key = await generateKeyPair('Ed25519')
    const other = await generateKeyPair('Ed25519')
    const self = peerIdFromPrivateKey(key).toString()
    const config = { leaseMs: 15_000, skewMs: 2_000, settleMs: 0 }
    const doc = new Y.Doc()
    const l = leases({ signer: recordSigner(key, self), verifier: recordVerifier(), clock: () => clock.now }, config)
    const macroLeases = l.table(doc.getMap('macro'), 'jobmesh/macro/j')
    const rival = leases({ signer: recordSigner(other, peerIdFromPrivateKey(other).toString()), verifier: recordVerifier(), clock: () => clock.now }, config)
      .table(doc.getMap('macro'), 'jobmesh/macro/j')
    const silence = new OwnerSilence({ ownerTimeoutMs: 3_000, jitterMs: 0, tickMs: 100, now: 0 })
    const room = {
      self,
      macroIndex: 0,
      macroKey: '0',
      clock: () => clock.now,
      silence,
      state: undefined,
      claiming: false,
      claimedTerm: undefined,
      closed: false,
      components: { macroLeases, leases: l }
    } as unknown as RoomCore
    return { room, clock, macroLeases, rival, silence, self }
  }

  it('confirms a claim with every peer while they are few and with its rivals (the room topic\'s subscribers) beside it, beyond with the rivals only', async () => {
    const key = await generateKeyPair('Ed25519')
    const self = peerIdFromPrivateKey(key).toString()
    const asked: Array<string[] | undefined> = []
    const table = leases({ signer: recordSigner(key, self), verifier: recordVerifier(), clock: () => 10_000 }, { settleMs: 0 })
      .table(new Y.Doc().getMap('macro'), 'jobmesh/macro/j', {
        confirm: async (options) => { asked.push(options.peers); return { exchanged: 0, unreached: 0, skipped: 0 } }
      })
    const topic = '/jobmesh/1/job/j/macro/m0'
    const subscribers = new Map([[topic, ['peerA', 'peerB']], ['/jobmesh/1/job/j/macro/m1', ['peerC']]])
    const room = (peers: number): RoomCore => ({
      topic,
      components: { pubsub: { getPeers: () => Array.from({ length: peers }, (_, i) => `peer${i}`), getSubscribers: (t: string) => subscribers.get(t) ?? [] } }
    }) as unknown as RoomCore
    const blind = { topic, components: { pubsub: {} } } as unknown as RoomCore
    await claimNextEpoch(table, '0', 0, new AbortController().signal, claimPeers(room(CONFIRM_ALL_MAX_PEERS + 1)))
    expect(asked).toEqual([['peerA', 'peerB']])
    // few peers: every one, and the rivals alone beside it
    await claimNextEpoch(table, '0', 1, new AbortController().signal, claimPeers(room(CONFIRM_ALL_MAX_PEERS)))
    expect(asked.slice(1)).toEqual([undefined, ['peerA', 'peerB']])
    await claimNextEpoch(table, '0', 2, new AbortController().signal, claimPeers(blind))
    expect(asked.slice(3)).toEqual([undefined])
  })

  it('stands the failover role aside while the claim settles, and counts the silence from the claim\'s end', async () => {
    const { room, clock, macroLeases, silence } = await claimRoom()
    let during: boolean | undefined
    const lease = await claimQueue(room, async () => {
      during = room.claiming
      clock.now += 9_000 // a claim that took 9 s (a confirm queued behind a stuck exchange)
      return macroLeases.claim('0')
    })
    expect(during).toBe(true)
    expect(room.claiming).toBe(false)
    expect(lease.term).toBe(1)
    // a member would have suspected a silent owner 9 s after joining; the claim's end is a fresh start
    expect(silence.decide(clock.now)).toBe('alive')
  })

  it('releases a lease it won but opened no queue of, never one it is settling, serving or another peer holds', async () => {
    const { room, macroLeases, rival, self } = await claimRoom()
    await claimQueue(room, async () => macroLeases.claim('0'))
    // won, but the queue was not opened (a rival announced the room while it settled): unserved
    expect(unservedLease(room)).toMatchObject({ owner: self, term: 1 })
    room.claiming = true
    expect(unservedLease(room)).toBeUndefined() // a claim of it is settling
    room.claiming = false
    room.state = queue(4, { epoch: 1, owner: self })
    expect(unservedLease(room)).toBeUndefined() // its queue is open here
    room.state = undefined
    expect(releaseUnserved(room)).toBe(true)
    expect(macroLeases.isOpen('0')).toBe(true)
    expect(macroLeases.get('0')).toMatchObject({ owner: self, term: 1, expiresAt: 0 })
    // the next claim takes the term after it at once
    expect(rival.take('0').term).toBe(2)
    expect(releaseUnserved(room)).toBe(false) // another peer's lease is never touched
    expect(macroLeases.get('0')?.term).toBe(2)
  })

  it('leaves alone a lease of its own that it did not claim in this room (a peer back in the room of the epoch it opened)', async () => {
    const { room, macroLeases, self } = await claimRoom()
    macroLeases.take('0') // the epoch this peer opened earlier, in a room it has since left
    expect(room.state).toBeUndefined() // joined again: no snapshot yet
    expect(unservedLease(room)).toBeUndefined()
    expect(releaseUnserved(room)).toBe(false)
    expect(macroLeases.get('0')).toMatchObject({ owner: self, term: 1 })
    expect(macroLeases.isOpen('0')).toBe(false)
  })

  it('remembers the joiners that ask while its claim settles, each once, in order, a request for nothing withdrawing', () => {
    let early: string[] = []
    for (const [from, want] of [['b', 4], ['c', 4], ['b', 8], ['self', 4], ['d', 0], ['c', 0], ['e', 2]] as const) {
      early = earlyRequest(early, 'self', from, want)
    }
    expect(early).toEqual(['b', 'e'])
    const full = Array.from({ length: MAX_EARLY_REQUESTS }, (_, i) => `p${i}`)
    expect(earlyRequest(full, 'self', 'late', 4)).toEqual(full) // it asks again when it sees the queue
  })

  it('opens its queue with the joiners that asked while the claim settled pending: its first turn and their handoff go out in one snapshot', async () => {
    const { room, macroLeases, clock } = await claimRoom()
    const published: QueueState[] = []
    Object.assign(room, {
      size: 64, topic: 't', heartbeatMs: 1_000, maxBatch: 64, maxBytes: 65_536, early: [], doneOutbox: [], lastPublish: 0,
      completed: false, flushScheduled: false, epochRoot: undefined, view: crdt(), memory: ownerMemory(), waiter: new TurnWaiter(),
      ownersSeen: new Set<string>(), dispatch: () => {}
    })
    const doc = new Y.Doc()
    const micro = leases({ signer: recordSigner(await generateKeyPair('Ed25519'), room.self), verifier: recordVerifier(), clock: () => clock.now }, { settleMs: 0 })
    Object.assign(room.components, {
      microLeases: micro.table(doc.getMap('micro'), 'jobmesh/micro/j'),
      progress: { doneIn: () => 0, has: () => false },
      metrics: { snapshotsSent: 0, handoffs: 0 },
      pubsub: { publish: async () => { published.push(structuredClone(room.state as QueueState)) } }
    })
    const [b, c, x] = await Promise.all([0, 1, 2].map(async () => peerIdFromPrivateKey(await generateKeyPair('Ed25519')).toString()))
    const ask = (from: string, want: number): void => { onRequest(room, from, { macroIndex: 0, done: [], want }) }
    ask(x, 4) // before the claim: nobody to remember it for
    const lease = await claimQueue(room, async () => {
      ask(b, 4)
      ask(c, 4)
      return macroLeases.claim('0')
    })
    createQueue(room, lease)
    // the queue goes out at once with both joiners pending; the owner keeps it for its own first turn
    expect(published).toHaveLength(1)
    expect(published[0]).toMatchObject({ owner: room.self, epoch: 1, pending: [b, c] })
    expect(room.early).toEqual([])
    // its turn loop asks: it locks its batch and hands the queue to the first joiner in the same snapshot
    const turn = room.waiter.wait(4)
    serve(room)
    expect((await turn).map(i => i.index)).toEqual([0, 1, 2, 3])
    expect(published).toHaveLength(2)
    expect(published[1]).toMatchObject({ owner: b, term: 1, pending: [c] })
  })

  it('forgets the joiners it remembered when its claim is lost', async () => {
    const { room, macroLeases } = await claimRoom()
    room.early = []
    await expect(claimQueue(room, async () => {
      onRequest(room, 'joiner-b', { macroIndex: 0, done: [], want: 4 })
      expect(room.early).toEqual(['joiner-b'])
      macroLeases.take('0')
      throw new Error('lost')
    })).rejects.toThrow('lost')
    expect(room.early).toEqual([])
  })

  it('a room closed while its claim settles releases what the claim wrote', async () => {
    const { room, macroLeases } = await claimRoom()
    await expect(claimQueue(room, async () => {
      const written = macroLeases.take('0')
      room.closed = true // the processor left the room (its job ended, the peer stops)
      throw new Error(`aborted while settling term ${written.term}`)
    })).rejects.toThrow('aborted while settling term 1')
    expect(macroLeases.isOpen('0')).toBe(true)
  })
})
