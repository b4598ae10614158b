import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { patternBytes, startPeers, stopPeers, waitFor } from '@jobmesh/testkit'
import { CID } from 'multiformats/cid'
import { afterEach, describe, expect, it } from 'vitest'
import { retireJob } from '../../src/job-retirement.js'
import { createNode } from '../../src/node/index.js'
import { createContentStore, createRetention } from '../../src/storage/index.js'
import type { JobmeshNode } from '../../src/node/index.js'
import type { ContentStore, Retention, RetentionInit } from '../../src/storage/index.js'
import type { TestPeer } from '@jobmesh/testkit'

const DAY = 86_400_000
const JOB_A = '0x' + 'aa'.repeat(32)
const JOB_B = '0x' + 'bb'.repeat(32)

let nodes: JobmeshNode[] = []
let retentions: Retention[] = []
let peers: TestPeer[] = []
const dirs: string[] = []

afterEach(async () => {
  retentions.forEach(r => { r.stop() })
  retentions = []
  await Promise.all(nodes.map(async n => { await n.stop() }))
  nodes = []
  await stopPeers(peers)
  peers = []
  await Promise.all(dirs.splice(0).map(async d => { await rm(d, { recursive: true, force: true }) }))
})

async function setup (init: RetentionInit = {}, dataDir?: string): Promise<{ node: JobmeshNode, store: ContentStore, retention: Retention }> {
  const node = await createNode({ dataDir, listen: ['/ip4/127.0.0.1/tcp/0'] })
  nodes.push(node)
  const retention = createRetention({ datastore: node.datastore, pins: node.helia.pins, gc: async o => { await node.helia.gc(o) } }, { retainMs: DAY, ...init })
  retentions.push(retention)
  return { node, store: createContentStore({ helia: node.helia, retention }), retention }
}

/** Whether a CID is pinned here, and whether its root block is still stored. */
async function held (node: JobmeshNode, cid: string): Promise<{ pinned: boolean, stored: boolean }> {
  return { pinned: await node.helia.pins.isPinned(CID.parse(cid)), stored: await node.helia.blockstore.has(CID.parse(cid)) }
}

describe('retention: content pinned for a job is let go of once every job holding it ended long enough ago', () => {
  it('keeps what a job still running or within its retention holds; unpins and collects the rest', async () => {
    const { node, store, retention } = await setup()
    const shared = await store.addBytes(patternBytes(300_000, 1), { job: JOB_A })
    expect(await store.addBytes(patternBytes(300_000, 1), { job: JOB_B })).toBe(shared)
    const onlyA = await store.addOutput(patternBytes(5_000, 2), { job: JOB_A })
    const onlyB = await store.addRaw(patternBytes(100, 3), { job: JOB_B })
    const untagged = await store.addBytes(patternBytes(1_000, 4))

    await retention.ended(JOB_A, 1_000)
    expect(await retention.count()).toEqual({ jobs: 2, ended: 1 })
    // within A's retention: nothing goes
    expect(await retention.sweep(1_000 + DAY)).toEqual({ jobs: [], unpinned: [] })
    expect(await held(node, onlyA)).toEqual({ pinned: true, stored: true })

    // past it: what only A held goes (pin and blocks); what B holds too stays
    expect(await retention.sweep(1_001 + DAY)).toEqual({ jobs: [JOB_A], unpinned: [onlyA] })
    expect(await held(node, onlyA)).toEqual({ pinned: false, stored: false })
    expect(await held(node, shared)).toEqual({ pinned: true, stored: true })
    expect(await store.fetch(`ipfs://${shared}`)).toEqual(patternBytes(300_000, 1))
    expect(await retention.count()).toEqual({ jobs: 1, ended: 0 })

    // an ended job's first end counts; B never ended keeps everything until it does
    await retention.ended(JOB_B, 5 * DAY)
    await retention.ended(JOB_B, 9 * DAY)
    expect((await retention.sweep(6 * DAY + 1)).jobs).toEqual([JOB_B])
    for (const cid of [shared, onlyB]) expect(await held(node, cid)).toEqual({ pinned: false, stored: false })
    // content stored for no job is never let go of
    expect(await held(node, untagged)).toEqual({ pinned: true, stored: true })
    expect(await retention.count()).toEqual({ jobs: 0, ended: 0 })
  })

  it('a pinned input: the job\'s pin by URI is recorded, a kept CID (a model) stays, forever keeps all', async () => {
    const { node, store, retention } = await setup({ kept: cid => cid === model })
    const source = await setup({ retainMs: Infinity })
    await node.libp2p.dial(source.node.libp2p.getMultiaddrs()[0], { signal: AbortSignal.timeout(10_000) })
    const data = await source.store.addBytes(patternBytes(600_000, 5))
    const model = await source.store.addBytes(patternBytes(20_000, 6))
    expect(await store.pin(`ipfs://${data}`, { job: JOB_A, maxBytes: 2_000_000, timeoutMs: 20_000 })).toBe(true)
    expect(await store.pin(`ipfs://${model}`, { job: JOB_A, timeoutMs: 20_000 })).toBe(true)
    await retention.ended(JOB_A, 0)
    expect(await retention.sweep(2 * DAY)).toEqual({ jobs: [JOB_A], unpinned: [data] })
    expect(await held(node, data)).toEqual({ pinned: false, stored: false })
    expect(await held(node, model)).toEqual({ pinned: true, stored: true })

    // the source keeps everything whatever its jobs' ends
    const own = await source.store.addBytes(patternBytes(2_000, 7), { job: JOB_B })
    await source.retention.ended(JOB_B, 0)
    expect(await source.retention.sweep(1_000 * DAY)).toEqual({ jobs: [], unpinned: [] })
    expect(await held(source.node, own)).toEqual({ pinned: true, stored: true })
  })

  it('a sweep waits for a store under way, which then holds its content: nothing it stored is let go of', async () => {
    const { node, store, retention } = await setup()
    const bytes = patternBytes(50_000, 8)
    const cid = await store.addBytes(bytes, { job: JOB_A })
    await retention.ended(JOB_A, 0)
    // B stores the same content, begun before the sweep is asked for and ending after: the sweep runs once it ended
    // and B is a holder (without the lock the sweep finds A the only holder and unpins it while B adds it)
    const order: string[] = []
    const { promise: go, resolve: release } = Promise.withResolvers<void>()
    const storing = retention.holding(JOB_B, async () => { await go; const c = await store.addBytes(bytes); order.push('stored'); return c })
    const sweeping = retention.sweep(2 * DAY).then(r => { order.push('swept'); return r })
    release()
    expect(await storing).toBe(cid)
    expect(await sweeping).toEqual({ jobs: [JOB_A], unpinned: [] })
    expect(order).toEqual(['stored', 'swept'])
    expect(await held(node, cid)).toEqual({ pinned: true, stored: true })
  })

  it('what a job holds and when it ended outlive a restart of the node', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'jobmesh-retention-'))
    dirs.push(dir)
    const first = await setup({}, dir)
    const cid = await first.store.addOutput(patternBytes(3_000, 9), { job: JOB_A })
    await first.retention.ended(JOB_A, 0)
    first.retention.stop()
    await first.node.stop()
    nodes = []
    retentions = []
    const again = await setup({}, dir)
    expect(await again.retention.count()).toEqual({ jobs: 1, ended: 1 })
    expect(await again.retention.sweep(2 * DAY)).toEqual({ jobs: [JOB_A], unpinned: [cid] })
    expect(await held(again.node, cid)).toEqual({ pinned: false, stored: false })
  })

  it('a retired job (released, refunded, expired) has its end recorded', async () => {
    peers = await startPeers(1)
    const { node, store, retention } = await setup()
    const cid = await store.addOutput(patternBytes(3_000, 10), { job: JOB_A })
    const before = Date.now()
    retireJob({ processor: peers[0].processor, docs: peers[0].docs, retention }, JOB_A, 'settled')
    await waitFor(async () => (await retention.count()).ended === 1, { timeoutMs: 5_000, what: 'the job\'s end recorded' })
    // let go of a day after the retirement, not before
    expect((await retention.sweep(before + DAY - 1)).jobs).toEqual([])
    expect((await retention.sweep(Date.now() + DAY)).unpinned).toEqual([cid])
    expect(await held(node, cid)).toEqual({ pinned: false, stored: false })
  })
})
