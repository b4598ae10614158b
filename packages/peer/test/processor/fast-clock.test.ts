import { afterEach, describe, expect, it } from 'vitest'
import { jobsTopic } from '../../src/coord/index.js'
import { createDocStore } from '../../src/crdt/index.js'
import { createNode } from '../../src/node/index.js'
import { createProcessor } from '../../src/processor/index.js'
import { createTrafficCounters } from '../../src/protocol/index.js'
import { stopPeers, testExecutor, testJob, waitFor, waitForMesh } from '@jobmesh/testkit'
import type { TestPeer } from '@jobmesh/testkit'

let peers: TestPeer[] = []

afterEach(async () => {
  await stopPeers(peers)
  peers = []
})

/** Three peers as `startPeers` makes them, the third one's clock `leadMs` fast (no NTP, a drifting VM). */
async function peersWithLead (leadMs: number): Promise<TestPeer[]> {
  const out: TestPeer[] = []
  for (const lead of [0, 0, leadMs]) {
    const node = await createNode()
    const counters = createTrafficCounters()
    const docs = createDocStore({ ...node, counters }, { compactIntervalMs: 0 })
    const processor = createProcessor({ ...node, docs, counters, clock: () => Date.now() + lead }, {
      executor: testExecutor({ workMs: 300 }),
      hardware: { gpuModel: 'cpu', vramGb: 8 },
      heartbeatMs: 300,
      ownerTimeoutMs: 1_000,
      maxBatch: 4,
      leases: { leaseMs: 3_000, renewMs: 1_000, skewMs: 200, settleMs: 50 },
      summaryCheckMs: 1_000
    })
    out.push({ node, docs, processor, counters, id: node.peerId.toString(), stopped: false })
  }
  for (let i = 0; i < out.length; i++) {
    for (let j = i + 1; j < out.length; j++) await out[i].node.libp2p.dial(out[j].node.libp2p.getMultiaddrs()[0], { signal: AbortSignal.timeout(10_000) })
  }
  return out
}

describe('QA10: an honest peer whose clock runs fast', () => {
  it('keeps its leases in a shared room: every MicroJob runs once, the job completes', async () => {
    // past the skew allowance (200 ms here, 2 s by default), well inside a lease (3 s here, 15 s by default)
    peers = await peersWithLead(1_000)
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
