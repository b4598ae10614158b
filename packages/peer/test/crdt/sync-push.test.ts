import * as Y from 'yjs'
import { afterEach, describe, expect, it } from 'vitest'
import { waitFor } from '@jobmesh/testkit'
import { createDocStore, docTopic, jobDocName, SYNC_PROTOCOL } from '../../src/crdt/index.js'
import { DEFAULT_MAX_PUSH_BYTES, DEFAULT_SYNC_CHUNK_BYTES, DEFAULT_MAX_SYNC_BYTES, MAX_STORED_ANSWERS_PER_PEER } from '../../src/crdt/constants.js'
import { FrameStream } from '../../src/crdt/frame-stream.js'
import { FrameType } from '../../src/crdt/sync-frames.js'
import { createNode } from '../../src/node/index.js'
import { connect, Harness } from './helpers.js'
import type { DocStoreMetrics } from '../../src/crdt/index.js'
import type { ReceivedDiff } from '../../src/crdt/frame-stream.js'
import type { Peer } from './helpers.js'
import type { Stream } from '@libp2p/interface'
import type { Datastore, Key } from 'interface-datastore'


const h = new Harness()
afterEach(async () => { await h.cleanup() })

const MiB = 1024 * 1024
/**
 * What a pusher can send beyond what the responder reads before the responder's reset reaches it: its yamux window
 * (up to 16 MiB), the read-ahead (2 frames), and the chunks it queued meanwhile (the event loops' timing: 38 MiB
 * offered against a 16 MiB cap on Node 24, 58 MiB in a loaded CI run).
 */
const IN_FLIGHT_BOUND = 64 * MiB
/** What each test offers beyond the cap: twice the bound, so that without the bound all of it goes through. */
const OFFER_BEYOND = 2 * IN_FLIGHT_BOUND

/** A raw sync stream from one peer to another: what a peer that does not follow the protocol can send. */
interface Raw {
  stream: Stream
  frames: FrameStream
}

async function rawSync (from: Peer, to: Peer): Promise<Raw> {
  const stream = await from.node.libp2p.dialProtocol(to.node.peerId, SYNC_PROTOCOL, { signal: AbortSignal.timeout(10_000) })
  return { stream, frames: new FrameStream(stream, { chunkBytes: DEFAULT_SYNC_CHUNK_BYTES, maxDiffBytes: DEFAULT_MAX_SYNC_BYTES }) }
}

/** REQUEST with an empty state vector, then the responder's whole diff. */
async function requestDiff (raw: Raw, name: string, push: boolean): Promise<ReceivedDiff> {
  await raw.frames.write({ type: FrameType.REQUEST, push, name, stateVector: Y.encodeStateVector(new Y.Doc()) })
  return raw.frames.readDiff()
}

/**
 * Streams 1 MiB DIFF chunks that never end (`last` = 0) until the stream fails or `limit` bytes went out; says how
 * many bytes the stream took and whether the responder reset it.
 */
async function streamEndlessDiff (raw: Raw, limit: number): Promise<{ offered: number, reset: boolean }> {
  const chunk = new Uint8Array(MiB).fill(7)
  let offered = 0
  try {
    while (offered < limit) {
      await raw.frames.write({ type: FrameType.DIFF, last: false, chunk }, { signal: AbortSignal.timeout(10_000) })
      offered += chunk.length
      // let the stream's events in: a reset is seen at the next write
      await new Promise(resolve => setImmediate(resolve))
    }
  } catch {
    // the stream failed: below, whether the responder reset it
  }
  return { offered, reset: raw.stream.status === 'reset' }
}

function contentOf (update: Uint8Array | undefined): unknown {
  const doc = new Y.Doc()
  if (update != null) Y.applyUpdate(doc, update)
  return doc.getMap('micro').toJSON()
}

function counters (m: DocStoreMetrics): Pick<DocStoreMetrics, 'syncRefused' | 'syncFailed' | 'syncServed' | 'updatesApplied'> {
  return { syncRefused: m.syncRefused, syncFailed: m.syncFailed, syncServed: m.syncServed, updatesApplied: m.updatesApplied }
}

/** `name` opened on `a` with one entry, flushed: the doc, its stored state and `a`'s counters then. */
async function seeded (a: Peer, name: string): Promise<{ doc: Y.Doc, stored: Uint8Array | undefined, before: ReturnType<typeof counters> }> {
  const doc = await a.docs.open(name, { offline: true })
  doc.getMap('micro').set('0.0', 'a')
  await a.docs.flush(name)
  return { doc, stored: await a.docs.storedState(name), before: counters(a.docs.metrics) }
}

describe('sync pushes: who may push, and how much', () => {
  it('a peer not admitted that asks to push gets the diff as a pull, then a reset: its endless DIFF frames are not read; an honest one ends cleanly', async () => {
    const outsiders = new Set<string>()
    const a = await h.start({ docs: { admit: peer => !outsiders.has(peer) } })
    const x = await h.start({ docs: { syncTimeoutMs: 20_000 } })
    outsiders.add(x.node.peerId.toString())
    await connect(x, a)
    const name = jobDocName('0x' + '5a'.repeat(32))
    const { doc: da, stored, before } = await seeded(a, name)

    const raw = await rawSync(x, a)
    const diff = await requestDiff(raw, name, true)
    // the diff says no push is wanted, and no STATE_VECTOR follows
    expect(diff.noPush).toBe(true)
    expect(contentOf(diff.update)).toEqual({ '0.0': 'a' })
    const sent = await streamEndlessDiff(raw, OFFER_BEYOND)
    expect(sent.reset).toBe(true)
    // the read-ahead (2 frames), what yamux had in flight (its window grows to 16 MiB) and what the sender queued
    // before the reset reached it: bounded, far below what it offered (the bound's room is the event loops' timing)
    expect(sent.offered).toBeLessThan(IN_FLIGHT_BOUND)
    await waitFor(() => a.docs.metrics.syncServed > before.syncServed, { what: 'a to count its answer' })
    expect(counters(a.docs.metrics)).toEqual({ ...before, syncRefused: before.syncRefused + 1, syncServed: before.syncServed + 1 })
    expect(da.getMap('micro').toJSON()).toEqual({ '0.0': 'a' })
    expect(await a.docs.storedState(name)).toEqual(stored)

    // an honest peer that is not admitted gets its pull and ends the exchange, without an error or the timeout
    const started = Date.now()
    const dx = await x.docs.open(name, { follow: false })
    expect(dx.getMap('micro').toJSON()).toEqual({ '0.0': 'a' })
    const result = await x.docs.sync(name, a.node.peerId, { push: true, fresh: true })
    expect(result).toMatchObject({ sent: 0, pushDeclined: true })
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(x.docs.metrics.syncFailed).toBe(0)
    expect(x.docs.metrics.syncCompleted).toBe(2)
    expect(a.docs.metrics.syncRefused).toBe(before.syncRefused + 3)
    expect(a.docs.metrics.syncFailed).toBe(before.syncFailed)
  })

  it('an admitted peer\'s push over DEFAULT_MAX_PUSH_BYTES is refused once it passes the cap, nothing of it kept; a normal push still applies', async () => {
    const [a, m] = await Promise.all([h.start(), h.start()])
    await connect(m, a)
    const name = jobDocName('0x' + '5b'.repeat(32))
    const { doc: da, stored, before } = await seeded(a, name)

    const raw = await rawSync(m, a)
    const diff = await requestDiff(raw, name, true)
    expect(diff.noPush).toBe(false)
    expect((await raw.frames.read()).type).toBe(FrameType.STATE_VECTOR)
    const sent = await streamEndlessDiff(raw, DEFAULT_MAX_PUSH_BYTES + OFFER_BEYOND)
    expect(sent.reset).toBe(true)
    // the cap, the read-ahead (2 frames) and what yamux had in flight (its window grows to 16 MiB)
    expect(sent.offered).toBeGreaterThan(DEFAULT_MAX_PUSH_BYTES)
    expect(sent.offered).toBeLessThan(DEFAULT_MAX_PUSH_BYTES + IN_FLIGHT_BOUND)
    await waitFor(() => a.docs.metrics.syncRefused > before.syncRefused, { what: 'a to refuse the push' })
    expect(counters(a.docs.metrics)).toEqual({ ...before, syncRefused: before.syncRefused + 1 })
    expect(da.getMap('micro').toJSON()).toEqual({ '0.0': 'a' })
    expect(await a.docs.storedState(name)).toEqual(stored)

    // a write too big for gossip (2 MiB) travels as a push, under the cap: applied
    const dm = await m.docs.open(name)
    await waitFor(() => m.node.pubsub.getSubscribers(docTopic(name)).some(p => p.equals(a.node.peerId)), { what: 'm to see a subscribed' })
    dm.getMap('micro').set('0.1', new Uint8Array(2 * MiB).fill(1))
    await waitFor(() => (da.getMap('micro').get('0.1') as Uint8Array | undefined)?.length === 2 * MiB, { what: 'the pushed write at a' })
    expect(m.docs.metrics.updatesOversized).toBe(1)
    expect(da.getMap('micro').get('0.0')).toBe('a')
  })

  it('a peer that streams frames while the responder is not reading (its admission check) is reset after two frames\' worth', async () => {
    let admit: (() => void) | undefined
    const checked = new Promise<void>(resolve => { admit = resolve })
    let asked = false
    const a = await h.start({ docs: { admit: async () => { asked = true; await checked; return true } } })
    const m = await h.start()
    await connect(m, a)
    const name = jobDocName('0x' + '5c'.repeat(32))
    await a.docs.open(name, { offline: true })
    const before = counters(a.docs.metrics)

    const raw = await rawSync(m, a)
    await raw.frames.write({ type: FrameType.REQUEST, push: true, name, stateVector: Y.encodeStateVector(new Y.Doc()) })
    await waitFor(() => asked, { what: 'a to check the admission' })
    const sent = await streamEndlessDiff(raw, OFFER_BEYOND)
    admit?.()
    expect(sent.reset).toBe(true)
    expect(sent.offered).toBeLessThan(IN_FLIGHT_BOUND)
    await waitFor(() => a.docs.metrics.syncFailed > before.syncFailed, { what: 'a to count the failed exchange' })
    expect(a.docs.metrics.syncServed).toBe(before.syncServed)
  })
})

describe('closed docs', () => {
  /** A datastore whose reads of doc snapshots wait, while `gated`, until the test lets them through one by one. */
  function gatedDatastore (inner: Datastore): { datastore: Datastore, gate: { gated: boolean, waiting: Array<() => void>, active: number, max: number } } {
    const gate = { gated: false, waiting: [] as Array<() => void>, active: 0, max: 0 }
    const get = async (key: Key, options?: unknown): Promise<Uint8Array> => {
      if (!gate.gated || !key.toString().endsWith('/snapshot')) return inner.get(key, options as never)
      gate.active++
      gate.max = Math.max(gate.max, gate.active)
      try {
        await new Promise<void>(resolve => { gate.waiting.push(resolve) })
        return await inner.get(key, options as never)
      } finally {
        gate.active--
      }
    }
    const datastore = new Proxy(inner, {
      get: (target, prop) => {
        if (prop === 'get') return get
        const value = Reflect.get(target, prop) as unknown
        return typeof value === 'function' ? value.bind(target) : value
      }
    })
    return { datastore, gate }
  }

  it(`one peer gets at most ${MAX_STORED_ANSWERS_PER_PEER} answers of stored docs at once; the rest wait and are answered`, async () => {
    const node = await createNode()
    const { datastore, gate } = gatedDatastore(node.datastore)
    const a: Peer = { node, docs: createDocStore({ peerId: node.peerId, datastore, pubsub: node.pubsub, libp2p: node.libp2p }, { compactIntervalMs: 0 }) }
    h.peers.push(a)
    const b = await h.start()
    await connect(b, a)
    const name = jobDocName('0x' + '5d'.repeat(32))
    const da = await a.docs.open(name, { offline: true })
    da.transact(() => { for (let i = 0; i < 1_200; i++) da.getMap('micro').set(`0.${i}`, i) })
    await a.docs.close(name)
    gate.gated = true
    const requests = 6
    try {
      const answers = Array.from({ length: requests }, async () => requestDiff(await rawSync(b, a), name, true))
      await waitFor(() => gate.waiting.length >= MAX_STORED_ANSWERS_PER_PEER, { what: 'the first stored answers to load' })
      for (let released = 0; released < requests; released++) {
        await waitFor(() => gate.waiting.length > 0, { what: 'a stored answer to load' })
        gate.waiting.shift()?.()
      }
      const diffs = await Promise.all(answers)
      expect(gate.max).toBe(MAX_STORED_ANSWERS_PER_PEER)
      // read-only: every push is declined
      expect(diffs.every(d => d.noPush)).toBe(true)
      for (const d of diffs) expect(Object.keys(contentOf(d.update) as object)).toHaveLength(1_200)
      await waitFor(() => a.docs.metrics.syncServedClosed === requests, { what: 'a to count its answers' })
      expect(a.docs.metrics.syncRefused).toBe(0)
    } finally {
      gate.gated = false
      for (const release of gate.waiting.splice(0)) release()
    }
  })
})
