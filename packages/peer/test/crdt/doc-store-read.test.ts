import { afterEach, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { docTopic, jobDocName } from '../../src/crdt/index.js'
import { connect, Harness } from './helpers.js'
import { waitFor } from '@jobmesh/testkit'

const h = new Harness()
afterEach(async () => { await h.cleanup() })

/** Reads (`open(name, { follow: false })`, docs/crdt.md, Sync protocol, A read) and the catch-up's `askFirst`. */
describe('doc store: reads', () => {
  it('a doc read (follow: false) is caught up but not subscribed: its holders exchange nothing with the reader, its gossip does not reach it; followed later, it is', async () => {
    const [a, b, c] = await Promise.all([h.start(), h.start(), h.start()])
    await connect(a, b)
    await connect(a, c)
    await connect(b, c)
    const name = jobDocName('0x' + 'ef'.repeat(32))
    const topic = docTopic(name)
    const [da, db] = await Promise.all([a.docs.open(name), b.docs.open(name)])
    // grown (not young): a new subscriber of it gets a pull and a push from each holder
    da.transact(() => { for (let i = 0; i < 1_200; i++) da.getMap('micro').set(`0.${i}`, i) })
    await waitFor(() => db.getMap('micro').size === 1_200, { timeoutMs: 10_000, what: 'b to hold a\'s writes' })
    await waitFor(() => c.node.pubsub.getSubscribers(topic).length === 2, { timeoutMs: 10_000, what: 'c to see both holders subscribed' })
    const exchanges = (): number => a.docs.metrics.syncCompleted + b.docs.metrics.syncCompleted
    const served = (): number => a.docs.metrics.syncServed + b.docs.metrics.syncServed
    const [started, answered] = [exchanges(), served()]

    const dc = await c.docs.open(name, { catchUp: 'first', follow: false })
    expect(dc.getMap('micro').size).toBe(1_200)
    expect(c.node.pubsub.getTopics()).not.toContain(topic)
    da.getMap('micro').set('late', 'a')
    await waitFor(() => db.getMap('micro').get('late') === 'a', { timeoutMs: 10_000, what: 'b to get a\'s late write' })
    expect(dc.getMap('micro').has('late')).toBe(false)
    expect(served() - answered).toBe(1)
    expect(exchanges() - started).toBe(0)
    expect(a.node.pubsub.getSubscribers(topic).map(String)).not.toContain(c.node.peerId.toString())
    // read again: still the same doc, still not followed
    expect(await c.docs.open(name, { follow: false })).toBe(dc)
    expect(c.node.pubsub.getTopics()).not.toContain(topic)

    // followed: subscribed, caught up, and reached by gossip
    expect(await c.docs.open(name)).toBe(dc)
    expect(c.node.pubsub.getTopics()).toContain(topic)
    expect(dc.getMap('micro').get('late')).toBe('a')
    await waitFor(() => a.node.pubsub.getSubscribers(topic).map(String).includes(c.node.peerId.toString()), { timeoutMs: 10_000, what: 'a to see c subscribed' })
    da.getMap('micro').set('later', 'a')
    await waitFor(() => dc.getMap('micro').get('later') === 'a', { timeoutMs: 10_000, what: 'c to get a\'s next write' })
  })

  it('storedState gives what the store holds of a doc without opening it: the open doc\'s state, else the datastore\'s', async () => {
    const a = await h.start()
    const name = jobDocName('0x' + 'ab'.repeat(32))
    expect(await a.docs.storedState(name)).toBeUndefined()
    expect(await a.docs.storedState('not a doc name')).toBeUndefined()
    const doc = await a.docs.open(name, { offline: true })
    doc.getMap('m').set('k', 1)
    const read = (state: Uint8Array | undefined): unknown => {
      const copy = new Y.Doc()
      if (state != null) Y.applyUpdate(copy, state)
      return copy.getMap('m').get('k')
    }
    expect(read(await a.docs.storedState(name))).toBe(1)
    await a.docs.close(name)
    expect(read(await a.docs.storedState(name))).toBe(1)
    // read, not opened
    expect(a.docs.names()).not.toContain(name)
    expect(a.node.pubsub.getTopics()).not.toContain(docTopic(name))
  })

  it('a read with no subscriber connected gets the doc from a peer that only read it (the writers gone)', async () => {
    const [a, b] = await Promise.all([h.start(), h.start()])
    await connect(a, b)
    const name = jobDocName('0x' + 'fe'.repeat(32))
    const da = await a.docs.open(name)
    da.transact(() => { for (let i = 0; i < 1_200; i++) da.getMap('micro').set(`0.${i}`, i) })
    await a.docs.flush(name)
    await waitFor(() => b.node.pubsub.getSubscribers(docTopic(name)).length === 1, { timeoutMs: 10_000, what: 'b to see a subscribed' })
    const db = await b.docs.open(name, { catchUp: 'first', follow: false })
    expect(db.getMap('micro').size).toBe(1_200)
    await a.node.stop()

    // c knows no subscriber of the doc: its read asks the peers it has, one at a time, until one has the doc
    const [c, d] = await Promise.all([h.start(), h.start()])
    await connect(c, d)
    await connect(c, b)
    const served = b.docs.metrics.syncServed
    const dc = await c.docs.open(name, { catchUp: 'first', follow: false })
    expect(dc.getMap('micro').size).toBe(1_200)
    // b answered it (its count goes up once its side of the exchange has ended)
    await waitFor(() => b.docs.metrics.syncServed === served + 1, { timeoutMs: 10_000, what: 'b to have served the read' })
  })

  it("a catch-up with askFirst asks those peers before the doc's other subscribers", async () => {
    const [a, b] = await Promise.all([h.start(), h.start()])
    await connect(a, b)
    const name = jobDocName('0x' + 'fd'.repeat(32))
    const [da, db] = await Promise.all([a.docs.open(name), b.docs.open(name)])
    da.transact(() => { for (let i = 0; i < 1_200; i++) da.getMap('micro').set(`0.${i}`, i) })
    await waitFor(() => db.getMap('micro').size === 1_200, { timeoutMs: 10_000, what: 'b to hold a\'s writes' })
    // two readers, each connected to both holders, each told to ask another one first
    for (const [asked, other] of [[a, b], [b, a]]) {
      const c = await h.start()
      await connect(c, a)
      await connect(c, b)
      await waitFor(() => c.node.pubsub.getSubscribers(docTopic(name)).length === 2, { timeoutMs: 10_000, what: 'the reader to see both holders subscribed' })
      const [servedAsked, servedOther] = [asked.docs.metrics.syncServed, other.docs.metrics.syncServed]
      const dc = await c.docs.open(name, { catchUp: 'first', follow: false, askFirst: [asked.node.peerId.toString()] })
      expect(dc.getMap('micro').size).toBe(1_200)
      await waitFor(() => asked.docs.metrics.syncServed === servedAsked + 1, { timeoutMs: 10_000, what: 'the peer asked first to serve the read' })
      expect(other.docs.metrics.syncServed).toBe(servedOther)
    }
  })

  it('a closed doc is still read from its holder\'s storage: read-only (a pushed diff is ignored), its topic left', async () => {
    const [a, b] = await Promise.all([h.start(), h.start()])
    await connect(a, b)
    const name = jobDocName('0x' + 'fc'.repeat(32))
    const da = await a.docs.open(name)
    da.transact(() => { for (let i = 0; i < 1_200; i++) da.getMap('micro').set(`0.${i}`, i) })
    await a.docs.close(name)
    expect(a.docs.names()).not.toContain(name)
    expect(a.node.pubsub.getTopics()).not.toContain(docTopic(name))

    // b writes its own key before it reads: its push goes to a, which ignores it
    const db = await b.docs.open(name, { offline: true })
    db.getMap('micro').set('b', 'b')
    await b.docs.flush(name)
    await waitFor(() => b.node.libp2p.getConnections(a.node.peerId).length > 0, { timeoutMs: 10_000, what: 'b to see its connection to a' })
    await b.docs.sync(name, a.node.peerId)
    expect(db.getMap('micro').size).toBe(1_201)
    // a counts it once its side of the exchange has ended (b may exchange with it once more: a subscription of a's
    // from before its close, processed late on a loaded machine)
    await waitFor(() => a.docs.metrics.syncServedClosed >= 1, { timeoutMs: 10_000, what: 'a to have served the closed doc' })
    expect(a.docs.names()).not.toContain(name)
    // reopened (read, not followed: b would push to a new subscriber), a's doc holds what it stored and nothing of b's
    const again = await a.docs.open(name, { offline: true, follow: false })
    expect(again.getMap('micro').size).toBe(1_200)
    expect(again.getMap('micro').has('b')).toBe(false)
  })

  it('a doc closed while it is still being opened is listed, and closed once open: not left open, its topic not followed', async () => {
    const a = await h.start()
    const name = jobDocName('0x' + 'fa'.repeat(32))
    const opening = a.docs.open(name, { offline: true })
    // a job retired while one of its docs opens (job-retirement.ts closes every doc names() lists of the job)
    expect(a.docs.names()).toContain(name)
    await a.docs.close(name)
    await opening
    expect(a.docs.names()).not.toContain(name)
    expect(a.node.pubsub.getTopics()).not.toContain(docTopic(name))
  })

  it('a doc this peer never held is still "not open" here: a sync with it fails with DocNotFoundError', async () => {
    const [a, b] = await Promise.all([h.start(), h.start()])
    await connect(a, b)
    const name = jobDocName('0x' + 'fb'.repeat(32))
    await b.docs.open(name, { offline: true })
    await waitFor(() => b.node.libp2p.getConnections(a.node.peerId).length > 0, { timeoutMs: 10_000, what: 'b to see its connection to a' })
    await expect(b.docs.sync(name, a.node.peerId)).rejects.toHaveProperty('name', 'DocNotFoundError')
    expect(a.docs.metrics.syncServedClosed).toBe(0)
  })
})
