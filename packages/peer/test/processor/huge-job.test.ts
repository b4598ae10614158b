import { afterEach, describe, expect, it } from 'vitest'
import { jobsTopic, recordSigner, encodeMessage } from '../../src/coord/index.js'
import { attackerBeside } from './attacker-node.js'
import { signAnnouncement } from '../../src/jobs/index.js'
import { DEFAULT_PRICING, computeJobId } from '../../src/protocol/index.js'
import { startPeers, stopPeers, TEST_SPEC_CID, testJob, waitFor, waitForMesh } from '@jobmesh/testkit'
import type { JobSpec } from '../../src/protocol/index.js'
import type { TestPeer } from '@jobmesh/testkit'
import type { Stoppable } from './attacker-node.js'

let peers: TestPeer[] = []
const extra: Stoppable[] = []

afterEach(async () => {
  await stopPeers(peers)
  peers = []
  for (const e of extra.splice(0)) await e.stop().catch(() => {})
})

/**
 * A job's creator (no stake: the escrow's minimum fee of 1 000 wei per verifier share makes a job of 10^7 MicroJobs in
 * one MacroJob with 64 samples cost ~1.6 x 10^8 wei) announces a valid spec of very many MicroJobs. Every peer that
 * learns it slices it whole (`sliceJob` builds a descriptor per MicroJob: 10^6 took 2.6 s and 625 MB of heap, 10^7 ran
 * the process out of memory).
 */
describe('a job of very many MicroJobs', () => {
  it('does not stall or bloat the peers that learn it', async () => {
    peers = await startPeers(2)
    const { node: attacker } = await attackerBeside(peers, extra)
    await Promise.all(peers.map(async p => p.processor.start()))
    attacker.pubsub.subscribe(jobsTopic())
    await waitForMesh(peers, jobsTopic())
    await waitFor(() => peers.every(p => p.node.pubsub.getSubscribers(jobsTopic()).some(s => s.equals(attacker.peerId))), { timeoutMs: 10_000, what: 'the attacker on /jobs' })
    // more than MAX_MICROJOBS_PER_JOB (10^5); under 4 GB of heap for the two peers of this process without the bound
    const n = 1_500_000
    const base = testJob(1, 1).spec
    const spec: JobSpec = { ...base, blockCount: n, slicing: { macroJobs: 1, microJobsPerMacro: n, blocksPerMicro: 1 } }
    const jobId = computeJobId(spec.creator, TEST_SPEC_CID, 7n)
    const me = attacker.peerId.toString()
    const record = signAnnouncement(recordSigner(attacker.privateKey, me), spec, jobId, TEST_SPEC_CID, DEFAULT_PRICING)
    // the event loop's longest stall and the heap's growth while the peers learn the job
    global.gc?.()
    const heapBefore = process.memoryUsage().heapUsed
    let last = performance.now()
    let stall = 0
    const monitor = setInterval(() => { const now = performance.now(); stall = Math.max(stall, now - last - 20); last = now }, 20)
    try {
      await attacker.pubsub.publish(jobsTopic(), encodeMessage({ announcement: record }))
      // each peer drops it as malformed (without the bound it was valid: sliced whole, never dropped)
      await waitFor(() => peers.every(p => p.processor.metrics.droppedMalformed > 0), { timeoutMs: 20_000, what: 'both peers to drop the announcement' })
    } finally {
      clearInterval(monitor)
    }
    const grown = (process.memoryUsage().heapUsed - heapBefore) / 1e6
    const seen = `event loop stalled ${Math.round(stall)} ms, heap grew ${Math.round(grown)} MB`
    expect(stall, seen).toBeLessThan(500)
    expect(grown, seen).toBeLessThan(100)
  }, 60_000)
})
