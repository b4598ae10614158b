import { afterEach, describe, expect, it, onTestFinished } from 'vitest'
import { jobsTopic, leases, macroDocs, recordSigner, recordVerifier } from '../../src/coord/index.js'
import { isWorkTag, sliceJob } from '../../src/protocol/index.js'
import { jobDocName } from '../../src/crdt/index.js'
import { heldDone, startPeers, stopPeers, testExecutor, testJob, waitFor, waitForMesh } from '@jobmesh/testkit'
import type { TestPeer } from '@jobmesh/testkit'

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
    // the loop's waits and the executor once left an abort listener each on the processor's signal
    const warnings: string[] = []
    const onWarning = (w: Error): void => { if (w.name === 'MaxListenersExceededWarning') warnings.push(w.message) }
    process.on('warning', onWarning)
    onTestFinished(() => { process.off('warning', onWarning) })
    const runs = new Map<string, number>()
    const ranBy = new Map<TestPeer, number>()
    for (const p of peers) {
      p.processor.addEventListener('microjob:done', (evt) => {
        const key = `${evt.detail.macroIndex}.${evt.detail.index}`
        runs.set(key, (runs.get(key) ?? 0) + 1)
        ranBy.set(p, (ranBy.get(p) ?? 0) + 1)
      })
    }
    await Promise.all(peers.map(async p => p.processor.start()))
    await waitForMesh(peers, jobsTopic())
    const job = testJob(4, 16)
    const complete = peers.map(p => new Promise<void>(resolve => {
      p.processor.addEventListener('job:complete', () => { resolve() })
    }))
    await peers[0].processor.announceJob(job.spec, job.jobId, job.specCid)
    await Promise.all(complete)
    expect(warnings).toEqual([])
    expect(runs.size).toBe(64)
    expect([...runs.values()].every(n => n === 1)).toBe(true)
    expect(completions.length).toBeGreaterThanOrEqual(1)
    expect(completions.every(id => id === job.jobId)).toBe(true)
    // every peer holds a result for every MicroJob: its own rooms' MacroJob docs, and the others' it read to check
    // the summaries that ended the job there (1 s later here, `summaryCheckMs`)
    const macroCount = job.spec.slicing.macroJobs
    await waitFor(() => peers.every(p => heldDone(p.docs, job.jobId, macroCount).size === 64), { timeoutMs: 10_000, what: 'results synced' })
    // each result proves its signer's run: its work tag is made from the run's execution digest and the signer
    const signer = recordSigner(peers[0].node.privateKey, peers[0].id)
    const verifier = recordVerifier()
    const docs = macroDocs({ signer, verifier, docs: peers[0].docs, leases: leases({ signer, verifier }) }, { roundDoc: jobDocName(job.jobId), jobKey: job.jobId })
    for (let m = 0; m < macroCount; m++) await docs.open(m, { offline: true })
    const table = docs.results
    const executor = testExecutor()
    for (const d of sliceJob(job.spec, job.jobId).microJobs) {
      const { digest } = await executor.run({ jobId: job.jobId, spec: job.spec, ...d }, { signal: AbortSignal.timeout(5_000) })
      const results = table.list(d.macroIndex, d.index)
      expect(results.length).toBeGreaterThan(0)
      for (const r of results) expect(isWorkTag(r.workTag, digest, r.signer)).toBe(true)
    }
    const owners = new Set<string>()
    for (const p of peers) for (const set of p.processor.ownersSeen().values()) for (const o of set) owners.add(o)
    expect(owners.size).toBeGreaterThan(1)
    const handoffs = peers.reduce((n, p) => n + p.processor.metrics.handoffs, 0)
    expect(handoffs).toBeGreaterThan(0)
    // the traffic counters see the real paths: every peer verified other peers' results and received room and doc
    // traffic, and every peer that ran MicroJobs signed their leases and results (a peer that opened the job late can
    // find every batch taken: the fair batch splits only the last round of a queue over the members)
    expect(ranBy.size).toBeGreaterThan(1)
    for (const p of ranBy.keys()) expect(p.counters.recordSignatures).toBeGreaterThan(0)
    for (const p of peers) {
      expect(p.counters.recordVerifications).toBeGreaterThan(0)
      expect(p.counters.kinds.doc?.received).toBeGreaterThan(0)
      expect(p.counters.messageVerifications).toBe(p.counters.messagesReceived)
    }
    const snapshots = peers.reduce((n, p) => n + (p.counters.kinds.snapshot?.sent ?? 0), 0)
    expect(snapshots).toBe(peers.reduce((n, p) => n + p.processor.metrics.snapshotsSent, 0))
  })
})
