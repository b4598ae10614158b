import { afterEach, describe, expect, it } from 'vitest'
import { jobsTopic, macroTopic } from '../../src/coord/index.js'
import { INDEX_DOC, docsOfJob, jobDocName, macroDocName } from '../../src/crdt/index.js'
import { retireEndedJobs } from '../../src/job-retirement.js'
import { heldDone, startPeers, stopPeers, testExecutor, testJob, waitFor, waitForMesh } from '@jobmesh/testkit'
import type { TestPeer } from '@jobmesh/testkit'

let peers: TestPeer[] = []
afterEach(async () => { await stopPeers(peers); peers = [] })

/** The docs a peer holds open of `jobId`, and the gossipsub topics it follows that name it. */
function heldOf (p: TestPeer, jobId: string): { docs: string[], topics: string[] } {
  return {
    docs: docsOfJob(p.docs.names(), jobId),
    topics: p.node.pubsub.getTopics().filter(t => t.includes(jobId.slice(2)))
  }
}

/** The settlement's `ended` event, as settlement/service.ts dispatches it once a job is released or refunded on chain. */
function ended (settlement: EventTarget, jobId: string, status: 'Released' | 'Refunded'): void {
  settlement.dispatchEvent(new CustomEvent('ended', { detail: { jobId, status } }))
}

describe('a job over on chain is retired (job-retirement.ts)', () => {
  it('a released job: its docs closed and topics left on every peer, its results still read from their storage by a newcomer', async () => {
    peers = await startPeers(3, { executor: testExecutor({ workMs: 5 }) })
    const [a, b, reader] = peers
    const settlements = [new EventTarget(), new EventTarget()]
    const detach = [a, b].map((p, i) => retireEndedJobs({ settlement: settlements[i], processor: p.processor, docs: p.docs }))
    await Promise.all([a, b].map(async p => { await p.processor.start() }))
    await waitForMesh([a, b], jobsTopic())
    const job = testJob(2, 8)
    const complete = [a, b].map(async p => await new Promise<void>(resolve => { p.processor.addEventListener('job:complete', () => { resolve() }) }))
    await a.processor.announceJob(job.spec, job.jobId, job.specCid)
    await Promise.all(complete)
    for (const p of [a, b]) expect(heldOf(p, job.jobId).docs.length).toBeGreaterThanOrEqual(2)

    settlements.forEach(s => { ended(s, job.jobId, 'Released') })
    await waitFor(() => [a, b].every(p => heldOf(p, job.jobId).docs.length === 0), { timeoutMs: 10_000, what: 'the job\'s docs closed on both peers' })
    for (const p of [a, b]) {
      expect(heldOf(p, job.jobId).topics).toEqual([])
      expect(p.node.pubsub.getTopics()).not.toContain(macroTopic(job.jobId))
      expect(p.docs.names()).toContain(INDEX_DOC)
      expect(p.processor.knownJobs().find(j => j.jobId === job.jobId)?.state).toBe('settled')
      expect(p.processor.currentJob()).toBeUndefined()
    }

    // nobody has the job open any more: a reader's catch-up gets every result from the peers' stored docs
    for (let m = 0; m < 2; m++) await reader.docs.open(macroDocName(jobDocName(job.jobId), m), { follow: false, signal: AbortSignal.timeout(10_000) })
    expect(heldDone(reader.docs, job.jobId, 2).size).toBe(16)
    expect(a.docs.metrics.syncServedClosed + b.docs.metrics.syncServedClosed).toBeGreaterThanOrEqual(1)
    detach.forEach(d => { d() })
  })

  it('a job refunded while peers work on it: they stop its turns at once, leave it, and take up the next job, never it again', async () => {
    peers = await startPeers(2, { executor: testExecutor({ workMs: 100 }) })
    const settlements = peers.map(() => new EventTarget())
    peers.forEach((p, i) => { retireEndedJobs({ settlement: settlements[i], processor: p.processor, docs: p.docs }) })
    await Promise.all(peers.map(async p => { await p.processor.start() }))
    await waitForMesh(peers, jobsTopic())
    const refunded = testJob(2, 64)
    const starts = new Map<string, number>()
    const refund = { done: false }
    let startedAfter = 0
    for (const p of peers) {
      p.processor.addEventListener('microjob:start', (evt) => {
        starts.set(evt.detail.jobId, (starts.get(evt.detail.jobId) ?? 0) + 1)
        if (refund.done && evt.detail.jobId === refunded.jobId) startedAfter++
      })
    }
    await peers[0].processor.announceJob(refunded.spec, refunded.jobId, refunded.specCid)
    await waitFor(() => (starts.get(refunded.jobId) ?? 0) >= 2, { timeoutMs: 20_000, what: 'the first MicroJobs started' })

    refund.done = true
    settlements.forEach(s => { ended(s, refunded.jobId, 'Refunded') })
    await waitFor(() => peers.every(p => p.processor.currentJob() == null && heldOf(p, refunded.jobId).docs.length === 0), {
      timeoutMs: 10_000, what: 'both peers to leave the refunded job'
    })
    // the next jobs are taken up and finished (the loop chooses between them, the refunded one known); the refunded
    // one (far from finished: 128 MicroJobs of 100 ms) is never taken up again
    const next = [testJob(1, 4), testJob(1, 4)]
    for (const job of next) {
      const complete = peers.map(async p => await new Promise<void>(resolve => {
        p.processor.addEventListener('job:complete', (evt) => { if (evt.detail.jobId === job.jobId) resolve() })
      }))
      await peers[1].processor.announceJob(job.spec, job.jobId, job.specCid)
      await Promise.all(complete)
      expect(starts.get(job.jobId)).toBe(4)
    }
    expect(starts.get(refunded.jobId)).toBeLessThan(40)
    expect(startedAfter).toBe(0)
    for (const p of peers) {
      expect(heldOf(p, refunded.jobId)).toEqual({ docs: [], topics: [] })
      expect(p.processor.knownJobs().find(j => j.jobId === refunded.jobId)?.state).toBe('settled')
    }
  })
})
