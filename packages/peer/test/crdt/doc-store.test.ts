import * as Y from 'yjs'
import { afterEach, describe, expect, it } from 'vitest'
import { ORIGIN_GOSSIP, SYNC_PROTOCOL, docTopic, indexDocName, jobDocName, writtenKeys } from '../../src/crdt/index.js'
import type { UpdateVerdict } from '../../src/crdt/index.js'
import { connect, Harness} from './helpers.js'
import { waitFor } from '@jobmesh/testkit'
import type { Peer } from './helpers.js'

const h = new Harness()
afterEach(async () => { await h.cleanup() })

const NAME = indexDocName()

describe('doc store', () => {
  it('converges across 4 peers, small updates over gossip and a large one over sync', async () => {
    const peers = await Promise.all([0, 1, 2, 3].map(async () => h.start({ docs: { maxUpdateBytes: 4096 } })))
    for (let i = 0; i < peers.length; i++) {
      for (let j = i + 1; j < peers.length; j++) await connect(peers[i], peers[j])
    }
    const docs = await Promise.all(peers.map(async p => p.docs.open(NAME)))
    docs.forEach((d, i) => d.getMap('jobs').set(`job${i}`, i))
    await waitFor(() => docs.every(d => d.getMap('jobs').size === 4), { timeoutMs: 10_000, what: 'small updates everywhere' })

    const big = new Uint8Array(20_000).fill(7)
    docs[2].getMap('jobs').set('big', big)
    await waitFor(() => docs.every(d => (d.getMap('jobs').get('big') as Uint8Array | undefined)?.length === 20_000), { timeoutMs: 10_000, what: 'large update' })
    expect(peers[2].docs.metrics.updatesOversized).toBe(1)
    expect(peers[2].docs.metrics.updatesPublished).toBeGreaterThan(0)
    for (const d of docs) expect(d.getMap('jobs').toJSON()).toEqual(docs[0].getMap('jobs').toJSON())
  })

  it('a late joiner catches up through the sync protocol when it opens the doc', async () => {
    const [a, b] = await Promise.all([h.start(), h.start()])
    await connect(a, b)
    const name = jobDocName('0x' + 'ab'.repeat(32))
    const da = await a.docs.open(name)
    const db = await b.docs.open(name)
    da.getMap('micro').set('0.0', 'a')
    db.getMap('micro').set('0.1', 'b')
    await waitFor(() => da.getMap('micro').size === 2 && db.getMap('micro').size === 2, { what: 'both docs to hold 2 entries' })

    const c = await h.start()
    await connect(c, a)
    await connect(c, b)
    const dc = await c.docs.open(name)
    // no waiting: open resolves after the catch-up
    expect(dc.getMap('micro').toJSON()).toEqual({ '0.0': 'a', '0.1': 'b' })
    expect(c.docs.metrics.syncCompleted).toBeGreaterThan(0)
    expect(c.docs.metrics.syncBytesIn).toBeGreaterThan(0)
    expect(c.docs.metrics.updatesApplied).toBeGreaterThan(0)

    // the joiner's own writes reach everyone
    dc.getMap('micro').set('0.2', 'c')
    await waitFor(() => da.getMap('micro').size === 3 && db.getMap('micro').size === 3, { what: 'both docs to hold 3 entries' })
  })

  it("open with catchUp 'first' resolves after one peer's answer; the others' state arrives through their subscription exchanges", async () => {
    const peers = await Promise.all([0, 1, 2].map(async () => h.start()))
    const name = jobDocName('0x' + 'cd'.repeat(32))
    // three peers that never met write what no gossip carried
    const docs = await Promise.all(peers.map(async p => p.docs.open(name, { offline: true })))
    docs.forEach((d, i) => { d.getMap('micro').set(`0.${i}`, `peer ${i}`) })
    const late = await h.start()
    for (const p of peers) await connect(late, p)
    // the late peer knows the three subscribed before it opens (their subscriptions then start no exchange from it)
    await waitFor(() => late.node.pubsub.getSubscribers(docTopic(name)).length === 3, { what: 'the late peer to see the three subscriptions' })
    const before = late.docs.metrics.syncCompleted
    const doc = await late.docs.open(name, { catchUp: 'first' })
    // open waited for one exchange, not three
    expect(late.docs.metrics.syncCompleted - before).toBe(1)
    expect(doc.getMap('micro').size).toBeGreaterThanOrEqual(1)
    // every other peer pulls from and pushes to the new subscriber: all three writes arrive without another call
    await waitFor(() => doc.getMap('micro').size === 3, { timeoutMs: 10_000, what: 'the other peers\' writes' })
    expect(doc.getMap('micro').toJSON()).toEqual({ '0.0': 'peer 0', '0.1': 'peer 1', '0.2': 'peer 2' })
    // and what the late peer writes reaches them
    doc.getMap('micro').set('0.3', 'late')
    await waitFor(() => docs.every(d => d.getMap('micro').get('0.3') === 'late'), { timeoutMs: 10_000, what: 'the late write everywhere' })
  })

  it('open with catchUpWaitMs resolves when the wait ends; the catch-up goes on and brings the rest', async () => {
    let release = (): void => {}
    const held = new Promise<boolean>(resolve => { release = () => { resolve(true) } })
    // a answers no exchange until released
    const a = await h.start({ docs: { admit: async () => held } })
    const b = await h.start()
    await connect(a, b)
    const name = jobDocName('0x' + 'ce'.repeat(32))
    const da = await a.docs.open(name, { offline: true })
    da.getMap('micro').set('0.0', 'from a')
    await waitFor(() => b.node.pubsub.getSubscribers(docTopic(name)).length === 1, { what: "b to see a's subscription" })
    // an aborted open still throws
    const aborted = new AbortController()
    aborted.abort(new Error('caller gave up'))
    await expect(b.docs.open(jobDocName('0x' + 'cf'.repeat(32)), { catchUp: 'first', catchUpWaitMs: 50, signal: aborted.signal })).rejects.toThrow('caller gave up')
    const db = await b.docs.open(name, { catchUp: 'first', catchUpWaitMs: 50 })
    expect(db.getMap('micro').size).toBe(0)
    release()
    await waitFor(() => db.getMap('micro').get('0.0') === 'from a', { timeoutMs: 10_000, what: "a's write, once a answers" })
  })

  it("open with catchUp 'first' and no subscriber known asks nobody; a peer that opens the doc later exchanges with it", async () => {
    const [a, b] = await Promise.all([h.start(), h.start()])
    await connect(a, b)
    const name = jobDocName('0x' + 'cf'.repeat(32))
    const asked = (): number => a.docs.metrics.syncCompleted + a.docs.metrics.syncNotFound + a.docs.metrics.syncFailed
    const before = asked()
    // b has not opened the doc: nothing to ask it (a new job, which every peer opens at about the same time)
    const da = await a.docs.open(name, { catchUp: 'first' })
    expect(asked() - before).toBe(0)
    da.getMap('micro').set('0.0', 'from a')
    // b opens it later with what it wrote offline: the subscription exchanges bring each side the other's writes
    const db = await b.docs.open(name, { offline: true })
    db.getMap('micro').set('0.1', 'from b')
    await waitFor(() => da.getMap('micro').size === 2 && db.getMap('micro').size === 2, { timeoutMs: 10_000, what: 'both writes on both sides' })
  })

  it('a new subscriber of a young doc gets one exchange both ways from each peer; of a grown doc, a pull and a push', async () => {
    for (const [items, exchanges] of [[10, 1], [1_200, 2]]) {
      const [a, b] = await Promise.all([h.start(), h.start()])
      await connect(a, b)
      const name = jobDocName('0x' + String(items).padStart(64, '0'))
      const da = await a.docs.open(name)
      da.transact(() => { for (let i = 0; i < items; i++) da.getMap('micro').set(`0.${i}`, i) })
      await a.docs.flush(name)
      const before = a.docs.metrics.syncCompleted
      // b opens without asking anyone: what it gets from a comes from a's exchanges with its new subscriber
      const db = await b.docs.open(name, { offline: true })
      db.getMap('micro').set('b', 'from b')
      await waitFor(() => db.getMap('micro').size === items + 1 && da.getMap('micro').get('b') === 'from b', { timeoutMs: 10_000, what: 'both sides to hold both writes' })
      await waitFor(() => a.docs.metrics.syncCompleted - before >= exchanges, { timeoutMs: 10_000, what: `${exchanges} exchange(s) from a` })
      expect(a.docs.metrics.syncCompleted - before).toBe(exchanges)
      await h.cleanup()
    }
  })

  it('a new subscriber of a young doc gets an exchange only from the peers that published something it may lack', async () => {
    const asked: string[] = []
    const [a, b] = await Promise.all([h.start(), h.start({ docs: { admit: async peer => { asked.push(peer); return true } } })])
    await connect(a, b)
    const name = jobDocName('0x' + 'ad'.repeat(32))
    const da = await a.docs.open(name, { offline: true })
    da.getMap('micro').set('0.0', 'from a')
    await waitFor(() => b.node.pubsub.getSubscribers(docTopic(name)).length === 1, { what: "b to see a's subscription" })
    // a published a write b never got: a exchanges with b when it sees b subscribe
    const db = await b.docs.open(name, { offline: true })
    await waitFor(() => db.getMap('micro').get('0.0') === 'from a', { timeoutMs: 10_000, what: "a's write at b" })
    const c = await h.start()
    await connect(c, a)
    await connect(c, b)
    await waitFor(() => c.node.pubsub.getSubscribers(docTopic(name)).length === 2, { what: 'c to see both subscriptions' })
    const dc = await c.docs.open(name, { offline: true })
    await waitFor(() => dc.getMap('micro').get('0.0') === 'from a', { timeoutMs: 10_000, what: "a's exchange with c" })
    // b published nothing (a's write came to it over sync): it starts no exchange with c. Its store handles c's
    // subscription in the same event that makes it a subscriber here, and an exchange asks `admit` before it dials.
    await waitFor(() => b.node.pubsub.getSubscribers(docTopic(name)).some(p => p.equals(c.node.peerId)), { what: "b to see c's subscription" })
    expect(asked).not.toContain(c.node.peerId.toString())
    expect(b.docs.metrics.syncCompleted + b.docs.metrics.syncFailed).toBe(0)
    // what b writes now reaches c on gossip
    db.getMap('micro').set('0.1', 'from b')
    await waitFor(() => dc.getMap('micro').get('0.1') === 'from b', { timeoutMs: 10_000, what: "b's write at c" })
  })

  it('a young doc opened offline with a stored state pushes it to a subscriber that has nothing to give it', async () => {
    const name = jobDocName('0x' + 'ae'.repeat(32))
    const dir = await h.tempDir()
    const first = await h.start({ dataDir: dir })
    const stored = await first.docs.open(name, { offline: true })
    stored.getMap('micro').set('0.0', 'stored')
    await h.stopPeer(first)
    const [a, b] = await Promise.all([h.start(), h.start({ dataDir: dir })])
    await connect(a, b)
    // a has the doc open and published nothing: it starts no exchange with b when b subscribes
    const da = await a.docs.open(name)
    await waitFor(() => b.node.pubsub.getSubscribers(docTopic(name)).length === 1, { what: "b to see a's subscription" })
    await b.docs.open(name, { offline: true })
    await waitFor(() => da.getMap('micro').get('0.0') === 'stored', { timeoutMs: 10_000, what: "b's stored write at a" })
  })

  it('a pushed diff is re-broadcast on gossip, a quiet one (confirm, a subscriber\'s catch-up) only applied, an empty one neither kept nor sent', async () => {
    const [a, b] = await Promise.all([h.start(), h.start()])
    await connect(a, b)
    const name = jobDocName('0x' + 'ee'.repeat(32))
    const [da, db] = await Promise.all([a.docs.open(name), b.docs.open(name)])
    await waitFor(() => a.node.pubsub.getSubscribers(docTopic(name)).length === 1 && b.node.pubsub.getSubscribers(docTopic(name)).length === 1, { what: 'both subscribed' })
    // writes that a holds and nobody was sent (applied as gossip: persisted, not published)
    const write = (key: string): void => {
      const d = new Y.Doc()
      Y.applyUpdate(d, Y.encodeStateAsUpdate(da))
      d.getMap('micro').set(key, key)
      Y.applyUpdate(da, Y.encodeStateAsUpdate(d, Y.encodeStateVector(da)), ORIGIN_GOSSIP)
    }
    write('quiet')
    const before = b.docs.metrics.updatesPublished
    await a.docs.sync(name, b.node.peerId, { push: true, fresh: true, quiet: true })
    // the initiator is done once its diff is written; the responder applies it as it reads it
    await waitFor(() => db.getMap('micro').get('quiet') === 'quiet', { what: 'the quiet push applied' })
    await b.docs.flush(name)
    expect(b.docs.metrics.updatesPublished).toBe(before)
    write('loud')
    await a.docs.sync(name, b.node.peerId, { push: true, fresh: true })
    await waitFor(() => db.getMap('micro').get('loud') === 'loud', { what: 'the push applied' })
    await b.docs.flush(name)
    expect(b.docs.metrics.updatesPublished).toBe(before + 1)
    // a push that brings nothing new (b holds all of a) is applied, neither kept nor re-broadcast
    const applied = b.docs.metrics.updatesApplied
    const persisted = b.docs.metrics.updatesPersisted
    await a.docs.sync(name, b.node.peerId, { push: true, fresh: true })
    await waitFor(() => b.docs.metrics.updatesApplied > applied, { what: 'the empty push applied' })
    await b.docs.flush(name)
    expect(b.docs.metrics.updatesPublished).toBe(before + 1)
    expect(b.docs.metrics.updatesPersisted).toBe(persisted)
  })

  it('admitUpdate: an update held back (later) or refused (no) is not applied, on gossip nor in a pulled or pushed diff', async () => {
    // b applies from a only updates that write keys starting with "ok"; "no..." is refused, anything else held back
    let db = new Y.Doc()
    const verdict = (update: Uint8Array): UpdateVerdict => {
      const keys = [...(writtenKeys(update, db)?.get('jobs')?.keys() ?? [])]
      return keys.every(k => k.startsWith('ok')) ? 'yes' : keys.some(k => k.startsWith('no')) ? 'no' : 'later'
    }
    const [a, b] = await Promise.all([h.start(), h.start({ docs: { admitUpdate: (_peer, _name, update) => verdict(update) } })])
    await connect(a, b)
    const da = await a.docs.open(NAME)
    db = await b.docs.open(NAME)
    await waitFor(() => a.node.pubsub.getSubscribers(docTopic(NAME)).length === 1 && b.node.pubsub.getSubscribers(docTopic(NAME)).length === 1, { what: 'both subscribed' })
    da.getMap('jobs').set('ok-1', 1)
    await waitFor(() => db.getMap('jobs').get('ok-1') === 1, { what: 'an admitted update applied' })
    const unauthorized = b.docs.metrics.gossipUnauthorized
    da.getMap('jobs').set('held', 2)
    await waitFor(() => b.docs.metrics.gossipUnauthorized > unauthorized, { what: 'the held-back update counted' })
    expect(b.docs.metrics.gossipRejected).toBe(0)
    da.getMap('jobs').set('no-1', 3)
    await waitFor(() => b.docs.metrics.gossipRejected === 1, { what: 'the refused update rejected' })
    // the diffs that carry them, pulled by b or pushed by a, are dropped
    const refused = b.docs.metrics.syncRefused
    await b.docs.sync(NAME, a.node.peerId, { push: false, fresh: true })
    await a.docs.sync(NAME, b.node.peerId, { push: true, fresh: true })
    await waitFor(() => b.docs.metrics.syncRefused >= refused + 2, { what: 'both diffs dropped' })
    expect(db.getMap('jobs').toJSON()).toEqual({ 'ok-1': 1 })
  })

  it('a restarted peer keeps its PeerId and doc state and catches up on what it missed', async () => {
    const dataDir = await h.tempDir()
    const a = await h.start()
    let b = await h.start({ dataDir })
    await connect(b, a)
    const da = await a.docs.open(NAME)
    let db = await b.docs.open(NAME)
    db.getMap('jobs').set('from-b', 1)
    await waitFor(() => da.getMap('jobs').has('from-b'), { what: 'the entry written on b' })
    const id = b.node.peerId.toString()
    await h.stopPeer(b)

    da.getMap('jobs').set('while-b-was-away', 2)
    b = await h.start({ dataDir })
    expect(b.node.peerId.toString()).toBe(id)
    db = await b.docs.open(NAME, { offline: true })
    expect(db.getMap('jobs').get('from-b')).toBe(1)
    expect(db.getMap('jobs').has('while-b-was-away')).toBe(false)

    await connect(b, a)
    await b.docs.sync(NAME, a.node.peerId)
    expect(db.getMap('jobs').get('while-b-was-away')).toBe(2)
  })

  it('drops and counts garbage on a doc topic, and keeps working', async () => {
    const [a, b] = await Promise.all([h.start(), h.start()])
    await connect(a, b)
    const da = await a.docs.open(NAME)
    const db = await b.docs.open(NAME)
    await waitFor(() => b.node.pubsub.getSubscribers(docTopic(NAME)).length === 1, { timeoutMs: 10_000, what: 'subscription' })
    const topic = docTopic(NAME)
    await b.node.pubsub.publish(topic, new Uint8Array([9, 9, 9, 9]))
    await b.node.pubsub.publish(topic, new Uint8Array([1, 0xff, 0xff, 0xff, 0xff, 0x0f, 1, 2, 3]))
    await b.node.pubsub.publish(topic, new Uint8Array([1]))
    await waitFor(() => a.docs.metrics.updatesRejected === 3, { timeoutMs: 10_000, what: 'garbage counted' })
    db.getMap('jobs').set('still', 'works')
    await waitFor(() => da.getMap('jobs').get('still') === 'works', { what: 'the entry written after the garbage' })
  })

  it('persists updates, compacts them, and reloads the same state', async () => {
    const dataDir = await h.tempDir()
    let a = await h.start({ dataDir, docs: { compactEvery: 3 } })
    let doc = await a.docs.open(NAME)
    for (let i = 0; i < 10; i++) {
      doc.getMap('jobs').set(`k${i}`, i)
      await a.docs.flush()
    }
    expect(a.docs.metrics.compactions).toBeGreaterThan(0)
    const before = Y.encodeStateVector(doc)
    await h.stopPeer(a)
    a = await h.start({ dataDir })
    doc = await a.docs.open(NAME)
    expect(doc.getMap('jobs').size).toBe(10)
    expect(Y.encodeStateVector(doc)).toEqual(before)
  })
})

describe('doc store: missed gossip', () => {
  async function pair (): Promise<{ a: Y.Doc, b: Y.Doc, name: string, peers: Peer[] }> {
    const peers = await Promise.all([h.start(), h.start()])
    await connect(peers[0], peers[1])
    const name = jobDocName('0x' + 'cd'.repeat(32))
    const a = await peers[0].docs.open(name)
    const b = await peers[1].docs.open(name)
    await waitFor(() => peers.every(p => p.node.pubsub.getSubscribers(docTopic(name)).length === 1), { timeoutMs: 10_000, what: 'doc topic subscribers' })
    return { a, b, name, peers }
  }

  it('an update that depends on a lost one makes the receiver pull the missing part from the publisher', async () => {
    const { a, b, peers } = await pair()
    // The exchange both peers run when they see each other's subscription may still be under way and may carry the
    // "lost" update to b before the dependent one arrives. It runs once per subscription, so a later round cannot
    // be carried by it: each round writes fresh keys, and at most a handful of rounds can be absorbed.
    for (let round = 0; round < 6 && peers[1].docs.metrics.pendingPulls === 0; round++) {
      // a third writer's two updates: the first reaches only a (as if its gossip was lost), the second is gossiped
      const writer = new Y.Doc()
      writer.getMap('micro').set(`${round}.0`, 'first')
      const first = Y.encodeStateAsUpdate(writer)
      const sv = Y.encodeStateVector(writer)
      writer.getMap('micro').set(`${round}.1`, 'second')
      const second = Y.encodeStateAsUpdate(writer, sv)
      Y.applyUpdate(a, first, ORIGIN_GOSSIP) // persisted, not re-published
      Y.applyUpdate(a, second) // a local origin: published
      await waitFor(() => b.getMap('micro').get(`${round}.0`) === 'first' && b.getMap('micro').get(`${round}.1`) === 'second', { timeoutMs: 10_000, what: 'the missing update' })
    }
    expect(peers[1].docs.metrics.pendingPulls).toBeGreaterThanOrEqual(1)
    expect(b.store.pendingStructs).toBeNull()
  })

  it('confirm() exchanges writes nobody gossiped with every connected peer: theirs are here when it resolves', async () => {
    const { a, b, name, peers } = await pair()
    const unpublished = (doc: Y.Doc, key: string, value: string): void => {
      const d = new Y.Doc()
      d.getMap('macro').set(key, value)
      Y.applyUpdate(doc, Y.encodeStateAsUpdate(d), ORIGIN_GOSSIP) // persisted, not published
    }
    unpublished(a, '0', 'lease of a')
    unpublished(b, '1', 'lease of b')
    const confirmed = await peers[0].docs.confirm(name, { signal: AbortSignal.timeout(10_000) })
    expect(confirmed).toEqual({ exchanged: 1, unreached: 0, skipped: 0 })
    expect(a.getMap('macro').get('1')).toBe('lease of b')
    await waitFor(() => b.getMap('macro').get('0') === 'lease of a', { timeoutMs: 10_000, what: 'our write on the other side' })
  })

  it('confirm() with `peers` exchanges with those connected peers only and counts the others as skipped', async () => {
    const { a, name, peers } = await pair()
    const c = await h.start()
    await connect(peers[0], c)
    const dc = await c.docs.open(name)
    await waitFor(() => peers[0].node.pubsub.getSubscribers(docTopic(name)).length === 2, { timeoutMs: 10_000, what: 'both subscribers' })
    const unpublished = (doc: Y.Doc, key: string): void => {
      const d = new Y.Doc()
      d.getMap('macro').set(key, key)
      Y.applyUpdate(doc, Y.encodeStateAsUpdate(d), ORIGIN_GOSSIP) // persisted, not published
    }
    unpublished(a, 'of a')
    const confirmed = await peers[0].docs.confirm(name, { peers: [c.node.peerId.toString()], signal: AbortSignal.timeout(10_000) })
    expect(confirmed).toEqual({ exchanged: 1, unreached: 0, skipped: 1 })
    await waitFor(() => dc.getMap('macro').get('of a') === 'of a', { timeoutMs: 10_000, what: 'the write on the asked peer' })
    // the peer not asked got nothing from this confirm (the write was never published)
    expect((await peers[1].docs.open(name, { offline: true })).getMap('macro').get('of a')).toBeUndefined()
  })

  it('confirm() gives up on a peer within its own timeout, also while an earlier exchange with that peer still hangs', async () => {
    const a = await h.start({ docs: { syncTimeoutMs: 120_000 } })
    // a peer that accepts sync streams and never answers (a starved or stuck process)
    const stuck = await h.start()
    await stuck.node.libp2p.handle(SYNC_PROTOCOL, () => {}, { force: true })
    await connect(a, stuck)
    const name = jobDocName('0x' + 'ef'.repeat(32))
    await a.docs.open(name, { offline: true })
    let hungSettled = false
    const hung = a.docs.sync(name, stuck.node.peerId, { push: false })
    hung.then(() => { hungSettled = true }, () => { hungSettled = true })
    // the confirm's exchange with that peer queues behind the hung one; its timeout counts from the confirm
    const confirmed = await a.docs.confirm(name, { timeoutMs: 300, signal: AbortSignal.timeout(60_000) })
    // the peer that never answered counts as unreached (a lease claim then waits its whole settle window)
    expect(confirmed).toEqual({ exchanged: 0, unreached: 1, skipped: 0 })
    expect(hungSettled).toBe(false)
  })
})
