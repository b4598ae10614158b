import { afterEach, describe, expect, it } from 'vitest'
import { RESULTS_MAP, jobsTopic } from '../../src/coord/index.js'
import { jobDocName } from '../../src/crdt/index.js'
import { testExecutor } from '../../src/processor/index.js'
import { spec, startPeers, stopPeers, waitFor, waitForMesh } from './helpers.js'
import type { TestPeer } from './helpers.js'

let peers: TestPeer[] = []

afterEach(async () => {
  await stopPeers(peers)
  peers = []
})

describe('processor', () => {
  it('5 peers process a job of 64 MicroJobs, each exactly once, ownership moving', async () => {
    const completions: string[] = []
    // 20 ms of work per MicroJob: long enough that a room's queue is still open when the fifth peer joins it
    // (with no-op work an owner can drain its 16 items before anyone asks, and ownership never moves)
    // production heartbeat and owner timeout: this test is about the start race, and the helpers' 1 s owner timeout
    // declares a live owner dead on a starved 2-core machine (a failover is not the happy path)
    peers = await startPeers(5, { executor: testExecutor({ workMs: 20 }), heartbeatMs: 1_000, ownerTimeoutMs: 3_000, onJobComplete: (jobId) => { completions.push(jobId) } })
    const runs = new Map<string, number>()
    for (const p of peers) {
      p.processor.addEventListener('microjob:done', (evt) => {
        const key = `${evt.detail.macroIndex}.${evt.detail.index}`
        runs.set(key, (runs.get(key) ?? 0) + 1)
      })
    }
    await Promise.all(peers.map(async p => p.processor.start()))
    await waitForMesh(peers, jobsTopic())
    const job = spec(4, 16)
    const complete = peers.map(p => new Promise<void>(resolve => {
      p.processor.addEventListener('job:complete', () => { resolve() })
    }))
    await peers[0].processor.announceJob(job.spec, job.jobId, job.specCid)
    await Promise.all(complete)
    expect(runs.size).toBe(64)
    expect([...runs.values()].every(n => n === 1)).toBe(true)
    expect(completions.length).toBeGreaterThanOrEqual(1)
    expect(completions.every(id => id === job.jobId)).toBe(true)
    // every peer's doc has one result per MicroJob
    await waitFor(() => peers.every(p => p.docs.get(jobDocName(job.jobId))?.getMap(RESULTS_MAP).size === 64), 10_000, 'results synced')
    const owners = new Set<string>()
    for (const p of peers) for (const set of p.processor.ownersSeen().values()) for (const o of set) owners.add(o)
    expect(owners.size).toBeGreaterThan(1)
    const handoffs = peers.reduce((n, p) => n + p.processor.metrics.handoffs, 0)
    expect(handoffs).toBeGreaterThan(0)
  })
})

describe('processor failover', () => {
  it('the queue owner is stopped abruptly mid-job: another peer takes over, no MicroJob lost', async () => {
    peers = await startPeers(4, { executor: testExecutor({ workMs: 20 }), maxBatch: 2 })
    await Promise.all(peers.map(async p => p.processor.start()))
    await waitForMesh(peers, jobsTopic())
    const job = spec(1, 48)
    let killed: (typeof peers)[number] | undefined = undefined
    let done = 0
    const failovers: string[] = []
    for (const p of peers) {
      p.processor.addEventListener('microjob:done', () => { done++ })
    }
    const complete = new Promise<void>(resolve => {
      for (const p of peers) p.processor.addEventListener('job:complete', () => { if (p !== killed) resolve() })
    })
    await peers[0].processor.announceJob(job.spec, job.jobId, job.specCid)
    await waitFor(() => done >= 12, 20_000, 'a quarter of the job')
    // find the current owner (as most peers see it) and kill it without any goodbye
    const ownerId = findOwner(peers, job.jobId)
    killed = peers.find(p => p.id === ownerId) ?? peers[0]
    killed.stopped = true
    await killed.processor.stop({ abrupt: true })
    await killed.node.libp2p.stop()
    for (const p of peers) if (p !== killed) p.processor.addEventListener('ownership', () => { failovers.push(p.id) })
    await complete
    const alive = peers.find(p => p !== killed)!
    const results = alive.docs.get(jobDocName(job.jobId))!.getMap(RESULTS_MAP)
    const micro = () => new Set([...results.keys()].map(k => k.split('/')[0]))
    await waitFor(() => micro().size === 48, 10_000, 'every result synced')
    expect(micro().size).toBe(48)
    if (killed.id === ownerId) {
      // the queue moved on through the MacroJob lease: a later epoch
      const epochs = peers.filter(p => p !== killed).map(p => (p.processor as unknown as { contexts: Map<string, { rooms: Map<number, { state?: { epoch: number } }> }> }).contexts.get(job.jobId)?.rooms.get(0)?.state?.epoch ?? 0)
      expect(Math.max(...epochs)).toBeGreaterThanOrEqual(2)
    }
    await killed.docs.stop().catch(() => {})
    await killed.node.stop().catch(() => {})
  })
})

function findOwner (peers: TestPeer[], jobId: string): string | undefined {
  const counts = new Map<string, number>()
  for (const p of peers) {
    const rooms = (p.processor as unknown as { contexts: Map<string, { rooms: Map<number, { state?: { owner: string } }> }> }).contexts
    const owner = rooms.get(jobId)?.rooms.get(0)?.state?.owner
    if (owner != null) counts.set(owner, (counts.get(owner) ?? 0) + 1)
  }
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0]
}
