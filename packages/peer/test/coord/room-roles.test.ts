import { generateKeyPair } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { leases } from '../../src/coord/leases.js'
import { LeaseRecord } from '../../src/coord/pb/coord.js'
import { DONE, LOCKED, OPEN, judge } from '../../src/coord/queue.js'
import { FutureSnapshots, chainOf, epochValid } from '../../src/coord/room-member.js'
import { applyRequest, handoff, ownerMemory, pickBatch, rebuildQueue, reconcile } from '../../src/coord/room-owner.js'
import { TurnWaiter } from '../../src/coord/room-waiter.js'
import { handOffTo } from '../../src/coord/room-serve.js'
import { OwnerSilence } from '../../src/coord/owner-silence.js'
import { claimNextEpoch, outvotingLease, ownerGossipAt, supersedingLease, topClaimOfAnother } from '../../src/coord/room-failover.js'
import { MAX_LEASE_TERM } from '../../src/coord/constants.js'
import { recordSigner, recordVerifier } from '../../src/coord/signing.js'
import { GRACE_MS, LEASE_MS, crdt, lease, queue } from './room-fixtures.js'
import type { RoomCore } from '../../src/coord/room-core.js'
import type { Lease } from '../../src/coord/leases.js'
import type { QueueState } from '../../src/coord/queue.js'
import type { EpochCheck } from '../../src/coord/room-member.js'

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

  it('a new epoch stands on the CRDT\'s MacroJob lease of that term held by its root; a signed lease alone does not', async () => {
    const a = await epochSigner()
    const b = await epochSigner()
    const inCrdt: { lease?: Lease } = {}
    const check: EpochCheck = { verifier: recordVerifier(), domain: 'jobmesh/macro/job/0', crdtLease: () => inCrdt.lease }
    const next = queue(4, { epoch: 3, owner: a.peer, prevOwner: a.peer, macroLease: a.sign(3) })
    expect(epochValid(check, { ...next, macroLease: a.sign(2) }, a.peer)).toBe(false) // another term
    expect(epochValid(check, next, b.peer)).toBe(false) // term 0 must come from the lease's signer
    // not synced yet: the signed lease proves a claim, not that it won
    expect(epochValid(check, next, a.peer)).toBeUndefined()
    expect(epochValid(check, { ...next, macroLease: undefined }, a.peer)).toBeUndefined()
    inCrdt.lease = lease(a.peer, 3, 99)
    expect(epochValid(check, next, a.peer)).toBe(true)
    expect(epochValid(check, { ...next, macroLease: undefined }, a.peer)).toBe(true)
    expect(epochValid(check, { ...next, macroLease: undefined, term: 2, owner: b.peer, prevOwner: a.peer }, a.peer)).toBe(true) // a later turn
    // a peer that signs its own lease of the term the CRDT gives another, or of a term far ahead
    const bOwn = { ...next, owner: b.peer, prevOwner: b.peer, macroLease: b.sign(3) }
    expect(epochValid(check, bOwn, b.peer)).toBe(false)
    expect(epochValid(check, { ...bOwn, macroLease: undefined }, b.peer)).toBe(false)
    expect(epochValid(check, { ...bOwn, epoch: 1_000, macroLease: b.sign(1_000) }, b.peer)).toBeUndefined()
    expect(judge(undefined, { ...bOwn, epoch: 1_000, macroLease: b.sign(1_000) }, b.peer, (n, f) => epochValid(check, n, f))).toBe('future')
    // an epoch the CRDT has passed
    inCrdt.lease = lease(b.peer, 4, 99)
    expect(epochValid(check, next, a.peer)).toBe(false)
  })

  it('of two owners of one epoch (concurrent claims) every member ends with the one the CRDT kept, whatever turn each chain reached; a signed rival alone is no reason', async () => {
    const [x, y, z] = [await epochSigner(), await epochSigner(), await epochSigner()]
    const inCrdt: { lease?: Lease } = {}
    const check: EpochCheck = { verifier: recordVerifier(), domain: 'jobmesh/macro/job/0', crdtLease: () => inCrdt.lease }
    const fromY = queue(4, { epoch: 5, owner: y.peer, prevOwner: y.peer, macroLease: y.sign(5) })
    const fromX = queue(4, { epoch: 5, owner: x.peer, prevOwner: x.peer, macroLease: x.sign(5) })
    const fromZ = queue(4, { epoch: 5, owner: z.peer, prevOwner: z.peer, macroLease: z.sign(5) })
    // nothing synced: neither chain is taken over the other, and neither continues the other
    expect(chainOf(check, fromY, y.peer, fromX, x.peer)).toBe('rival')
    expect(chainOf(check, fromX, x.peer, fromY, y.peer)).toBe('rival')
    inCrdt.lease = lease(x.peer, 5, 99)
    expect(chainOf(check, fromY, y.peer, fromX, x.peer)).toBe('yield')
    expect(chainOf(check, fromX, x.peer, fromY, y.peer)).toBe('rival')
    expect(chainOf(check, fromX, x.peer, fromZ, z.peer)).toBe('rival')
    inCrdt.lease = lease(y.peer, 5, 99)
    expect(chainOf(check, fromX, x.peer, fromY, y.peer)).toBe('yield')
    expect(chainOf(check, fromY, y.peer, fromX, x.peer)).toBe('rival')
    // the stall this closes: X and Y each handed term 1 of their own chain to the other; Y's handoff reaches X, which
    // had gone further in its own chain (a higher version: `judge` alone calls it stale), and X waited for Y's turn
    // in X's chain while Y waited for X's in Y's
    const xChain = { ...fromX, term: 1, owner: y.peer, prevOwner: x.peer, version: 9 }
    const yHandoff = { ...fromY, term: 1, owner: x.peer, prevOwner: y.peer, version: 2 }
    expect(judge(xChain, yHandoff, y.peer, () => true)).toBe('stale')
    expect(chainOf(check, xChain, x.peer, yHandoff, y.peer)).toBe('yield')
    // a later turn of the rival chain taken from its handoff message only, never from its owner's own word
    expect(chainOf(check, xChain, x.peer, { ...fromY, term: 7, owner: z.peer, prevOwner: x.peer }, x.peer)).toBe('yield')
    expect(chainOf(check, xChain, x.peer, { ...fromY, term: 7, owner: z.peer, prevOwner: x.peer }, z.peer)).toBe('rival')
    // once a member follows the kept chain, the other chain's turns never continue it, though its owners are the same
    const followed = { ...yHandoff }
    expect(chainOf(check, followed, y.peer, { ...fromX, term: 2, owner: y.peer, prevOwner: x.peer, version: 10 }, x.peer)).toBe('rival')
    expect(judge(followed, { ...fromX, term: 2, owner: y.peer, prevOwner: x.peer, version: 10 }, x.peer, () => true)).toBe('accept')
    // its own chain is judged as usual, and so is a snapshot when the root of the chain followed is not known
    expect(chainOf(check, followed, y.peer, { ...fromY, term: 2, owner: y.peer, prevOwner: x.peer }, x.peer)).toBe('same')
    expect(chainOf(check, { ...fromY, macroLease: undefined }, undefined, fromX, x.peer)).toBe('same')
    // a lease record of another term is nobody's root
    expect(chainOf(check, fromY, y.peer, { ...fromX, macroLease: x.sign(4) }, x.peer)).toBe('rival')
  })

  it('takes a gap\'s newest turn only when a handoff message names its owner; a turn a peer claims for itself is never taken', () => {
    const current = queue(4, { epoch: 2, term: 1, owner: 'p1', prevOwner: 'p0' })
    const judgeFrom = (s: QueueState, from: string) => judge(current, s, from, () => true)
    // a turn far ahead, claimed by its sender: as the owner of a turn nobody handed it, or as its own previous owner
    const claimed = queue(4, { epoch: 2, term: 1_000_000, owner: 'evil', prevOwner: 'p1' })
    expect(judgeFrom(claimed, 'evil')).toBe('future')
    expect(judgeFrom({ ...claimed, prevOwner: 'evil' }, 'evil')).toBe('forged')
    const future = new FutureSnapshots(16)
    future.add(claimed, 'evil', 1_000)
    expect(future.next(current, judgeFrom, 100_000, 1_000)).toBeUndefined()
    // the real chain's handoff of term 3 (from p2 to p3), and p3's later version of it: the newest of those is taken
    future.add(queue(4, { epoch: 2, term: 3, owner: 'p3', prevOwner: 'p2', version: 5 }), 'p2', 2_000)
    future.add(queue(4, { epoch: 2, term: 3, owner: 'p3', prevOwner: 'p2', version: 7 }), 'p3', 2_100)
    const taken = future.next(current, judgeFrom, 100_000, 1_000)
    expect([taken?.term, taken?.version, taken?.owner]).toEqual([3, 7, 'p3'])
  })

  it('never takes a buffered snapshot of a new epoch for want of its lease, however long it waited', () => {
    const future = new FutureSnapshots(16)
    const current = queue(4, { epoch: 2, term: 1, owner: 'p1', prevOwner: 'p0' })
    future.add(queue(4, { epoch: 1_000, term: 0, owner: 'evil', prevOwner: 'evil' }), 'evil', 1_000)
    const undecided = (): 'future' => 'future'
    expect(future.next(current, undecided, 100_000, 1_000)).toBeUndefined()
    expect(future.next(undefined, undecided, 100_000, 1_000)).toBeUndefined()
    expect(future.size).toBe(1)
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

  it('a queue whose epoch the CRDT shows held by another peer than its root has lost its claim (two claims of one term)', () => {
    expect(outvotingLease(lease('b', 3, 10_000), 3, 'a')?.owner).toBe('b')
    expect(outvotingLease(lease('b', 3, 0), 3, 'a')?.owner).toBe('b') // released too: the claim kept is not this one
    expect(outvotingLease(lease('a', 3, 10_000), 3, 'a')).toBeUndefined() // its root renews it, whoever's turn it is
    expect(outvotingLease(lease('b', 4, 10_000), 3, 'a')).toBeUndefined() // a later epoch: supersedingLease
    expect(outvotingLease(lease('b', 3, 10_000), 3, undefined)).toBeUndefined() // a root not known: no verdict
  })

  it('at the top term follows another member\'s live claim instead of taking it over; the silent root\'s own claim is taken over', () => {
    const top = MAX_LEASE_TERM
    expect(topClaimOfAnother(lease('b', top, 10_000), 'attacker', 'self', open(5_000))?.owner).toBe('b')
    expect(topClaimOfAnother(lease('attacker', top, 10_000), 'attacker', 'self', open(5_000))).toBeUndefined()
    expect(topClaimOfAnother(lease('self', top, 10_000), 'attacker', 'self', open(5_000))).toBeUndefined()
    expect(topClaimOfAnother(lease('b', top, 10_000), 'attacker', 'self', open(11_000))).toBeUndefined() // lapsed
    expect(topClaimOfAnother(lease('b', top - 1, 10_000), 'attacker', 'self', open(5_000))).toBeUndefined() // a later term passes it
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
