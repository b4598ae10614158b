import { generateKeyPair } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { leases } from '../../src/coord/leases.js'
import { earlyRequest, ownerMemory } from '../../src/coord/room-owner.js'
import { TurnWaiter } from '../../src/coord/room-waiter.js'
import { createQueue, onRequest, serve, stoodDown } from '../../src/coord/room-serve.js'
import { microKey } from '../../src/coord/keys.js'
import { OwnerSilence } from '../../src/coord/owner-silence.js'
import { claimNextEpoch } from '../../src/coord/room-failover.js'
import { claimPeers, claimQueue, releaseUnserved, unservedLease } from '../../src/coord/room-claim.js'
import { CONFIRM_ALL_MAX_PEERS, FIRST_CLAIM_CONFIRM_ALL_MAX_PEERS, FIRST_CLAIM_SETTLE_MS, MAX_EARLY_REQUESTS, MAX_LEASE_TERM } from '../../src/coord/constants.js'
import { recordSigner, recordVerifier } from '../../src/coord/signing.js'
import { crdt, queue } from './room-fixtures.js'
import type { RoomCore } from '../../src/coord/room-core.js'
import type { QueueState } from '../../src/coord/queue.js'
import type { LeaseTable } from '../../src/coord/leases.js'

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

  /** Makes a {@link claimRoom} able to serve a queue of `size` items: what it publishes, and its MicroJob leases. */
  async function serving (room: RoomCore, clock: { now: number }, size: number): Promise<{ published: QueueState[], microLeases: LeaseTable }> {
    const published: QueueState[] = []
    Object.assign(room, {
      size, topic: 't', heartbeatMs: 1_000, maxBatch: size, maxBytes: 65_536, early: [], doneOutbox: [], lastPublish: 0,
      completed: false, flushScheduled: false, epochRoot: undefined, view: crdt(), memory: ownerMemory(), waiter: new TurnWaiter(),
      ownersSeen: new Set<string>(), dispatch: () => {}
    })
    const micro = leases({ signer: recordSigner(await generateKeyPair('Ed25519'), room.self), verifier: recordVerifier(), clock: () => clock.now }, { settleMs: 0 })
    const microLeases = micro.table(new Y.Doc().getMap('micro'), 'jobmesh/micro/j')
    Object.assign(room.components, {
      microLeases,
      progress: { doneIn: () => 0, has: () => false },
      metrics: { snapshotsSent: 0, handoffs: 0 },
      pubsub: { publish: async () => { published.push(structuredClone(room.state as QueueState)) } }
    })
    return { published, microLeases }
  }

  it('confirms a claim with every peer while they are few and with its rivals (the room topic\'s subscribers) beside it, beyond with the rivals only; a failover\'s claim counts more peers as few than a first claim', async () => {
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
    const failover = { failover: true }
    await claimNextEpoch(table, '0', 0, new AbortController().signal, claimPeers(room(CONFIRM_ALL_MAX_PEERS + 1), failover))
    expect(asked).toEqual([['peerA', 'peerB']])
    // few peers: every one, and the rivals alone beside it
    await claimNextEpoch(table, '0', 1, new AbortController().signal, claimPeers(room(CONFIRM_ALL_MAX_PEERS), failover))
    expect(asked.slice(1)).toEqual([undefined, ['peerA', 'peerB']])
    await claimNextEpoch(table, '0', 2, new AbortController().signal, claimPeers(blind, failover))
    expect(asked.slice(3)).toEqual([undefined])
    // a room's first claim (at a job's start every peer is opening the job): fewer peers count as few
    await table.claim('1', claimPeers(room(FIRST_CLAIM_CONFIRM_ALL_MAX_PEERS + 1)))
    expect(asked.slice(4)).toEqual([['peerA', 'peerB']])
    await table.claim('2', claimPeers(room(FIRST_CLAIM_CONFIRM_ALL_MAX_PEERS)))
    expect(asked.slice(5)).toEqual([undefined, ['peerA', 'peerB']])
  })

  it('a room\'s first claim settles in the shorter window while its peers are few; a failover\'s claim, or one among more peers, waits the whole window', () => {
    const topic = '/jobmesh/1/job/j/macro/m0'
    const room = (peers: number): RoomCore => ({
      topic,
      components: { pubsub: { getPeers: () => Array.from({ length: peers }, (_, i) => `peer${i}`), getSubscribers: () => ['peerA'] } }
    }) as unknown as RoomCore
    expect(claimPeers(room(FIRST_CLAIM_CONFIRM_ALL_MAX_PEERS)).settleMs).toBe(FIRST_CLAIM_SETTLE_MS)
    expect(claimPeers(room(CONFIRM_ALL_MAX_PEERS))).toEqual({ confirmWith: ['peerA'], settleMs: FIRST_CLAIM_SETTLE_MS })
    expect(claimPeers(room(CONFIRM_ALL_MAX_PEERS + 1))).toEqual({ confirmWith: ['peerA'] })
    expect(claimPeers(room(CONFIRM_ALL_MAX_PEERS), { failover: true }).settleMs).toBeUndefined()
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
    const { published } = await serving(room, clock, 64)
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

  it('an owner whose claim of its epoch the CRDT did not keep (two claims of the top term) stands down: no lock, no handoff, no heartbeat', async () => {
    const { room, macroLeases, rival, clock } = await claimRoom()
    const { published, microLeases } = await serving(room, clock, 8)
    const won = await claimQueue(room, async () => claimNextEpoch(macroLeases, '0', MAX_LEASE_TERM, new AbortController().signal))
    expect(won.term).toBe(MAX_LEASE_TERM)
    createQueue(room, won)
    expect(stoodDown(room)).toBe(false)
    onRequest(room, 'member-b', { macroIndex: 0, done: [], want: 4 })
    // another member's claim of the same top term written after this one: the CRDT keeps it
    rival.take('0', { force: true, minTerm: MAX_LEASE_TERM })
    expect(macroLeases.get('0')).toMatchObject({ term: MAX_LEASE_TERM })
    expect(macroLeases.get('0')?.owner).not.toBe(room.self)
    expect(stoodDown(room)).toBe(true)
    const before = published.length
    const turn = room.waiter.wait(4)
    serve(room)
    expect(await turn).toEqual([])
    expect(published).toHaveLength(before) // neither a handoff to member-b nor a heartbeat of the lost chain
    expect(room.state?.owner).toBe(room.self)
    expect(microLeases.get(microKey(0, 0))).toBeUndefined() // nothing locked under the lost claim
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
