import { afterEach, describe, expect, it } from 'vitest'
import { jobsTopic } from '../../src/coord/index.js'
import { startPeers, stopPeers, testExecutor, testJob, waitFor, waitForMesh } from '@jobmesh/testkit'
import type { TestPeer } from '@jobmesh/testkit'

let peers: TestPeer[] = []

afterEach(async () => {
  await stopPeers(peers)
  peers = []
})

describe('an honest peer whose clock runs fast', () => {
  it('keeps its leases in a shared room: every MicroJob runs once, the job completes', async () => {
    // past the skew allowance (200 ms here, 2 s by default), well inside a lease (6 s here, 15 s by default). The
    // fast peer reads the others' leases as ending 1 s early: with the test peers' 3 s lease that left 1 s for a
    // renewal (1 s apart) to arrive, and a CI run, its event loops slowed by forge's compile beside it, saw one
    // MicroJob of 48 run twice; 6 s leaves 4 s
    peers = await startPeers(3, { executor: testExecutor({ workMs: 300 }), maxBatch: 4, leases: { leaseMs: 6_000, renewMs: 1_000, skewMs: 200, settleMs: 50 } },
      { clockOf: i => i === 2 ? () => Date.now() + 1_000 : undefined })
    await Promise.all(peers.map(async p => p.processor.start()))
    await waitForMesh(peers, jobsTopic())
    const job = testJob(1, 48)
    let completed = 0
    const runs = new Map<string, number>()
    for (const p of peers) {
      p.processor.addEventListener('microjob:done', (evt) => {
        const key = `${evt.detail.macroIndex}.${evt.detail.index}`
        runs.set(key, (runs.get(key) ?? 0) + 1)
      })
      p.processor.addEventListener('job:complete', () => { completed++ })
    }
    await peers[0].processor.announceJob(job.spec, job.jobId, job.specCid)
    await waitFor(() => completed >= 3, { timeoutMs: 30_000, what: 'the job to complete on every peer' })
    const twice = [...runs].filter(([, n]) => n > 1).map(([k]) => k)
    expect(twice).toEqual([])
    expect(runs.size).toBe(48)
  }, 60_000)
})
