import { startChain, registerNodes } from '@jobmesh/testkit/anvil'
import { startPeers, stopPeers, testExecutor, testJob, waitFor } from '@jobmesh/testkit'
import { afterEach, describe, expect, it } from 'vitest'
import { docsOfJob } from '../../src/crdt/index.js'
import { retireExpiredJobs } from '../../src/job-expiry.js'
import { DEADLINE_MARGIN_MS } from '../../src/protocol/index.js'
import { chainClock, fundedJobs } from '../../src/settlement/index.js'
import { fakeSubmission } from '../settlement/fake-submission.js'
import { fundJob } from '../settlement/funded-job.js'
import type { JobSpec } from '../../src/protocol/index.js'
import type { TestPeer } from '@jobmesh/testkit'
import type { TestChain } from '@jobmesh/testkit/anvil'

let chain: TestChain | undefined
let peers: TestPeer[] = []
afterEach(async () => {
  await stopPeers(peers)
  peers = []
  await chain?.stop()
  chain = undefined
})

/** The docs a peer holds open of `jobId`. */
function docsOf (p: TestPeer, jobId: string): string[] {
  return docsOfJob(p.docs.names(), jobId)
}

describe('a job past its deadline that nothing can pay for is retired (job-expiry.ts)', () => {
  it('open or never funded on chain: retired as expired, its docs closed; submitted, refunded, or not yet due: kept', async () => {
    chain = await startChain({ accounts: 3 })
    const [creator, submitter] = chain.clients
    await registerNodes([submitter], 10n ** 18n)
    // the escrow reads this peer makes, per job; the processor lists a job settled on chain from them, as in a peer
    const reads = new Map<string, number>()
    const funded = fundedJobs({
      chain: {
        job: async (jobId, options) => {
          reads.set(jobId.toLowerCase(), (reads.get(jobId.toLowerCase()) ?? 0) + 1)
          return await creator.job(jobId, options)
        },
        jobCreated: async (jobId, options) => await creator.jobCreated(jobId, options),
        commitTimes: async (options) => await creator.commitTimes(options)
      }
    })
    peers = await startPeers(1, { executor: testExecutor({ workMs: 5 }), settled: jobId => funded.settled(jobId) })
    const [p] = peers
    await p.processor.start()
    // due in ten minutes, by the chain's clock and this machine's (anvil starts at this machine's time): far enough
    // from the processor's cutoff (DEADLINE_MARGIN_MS before it) to be worked on now
    const soon = Date.now() + DEADLINE_MARGIN_MS + 420_000
    const open = await fundJob(creator, { deadline: soon })
    const later = await fundJob(creator, { nonce: 2n })
    const submitted = await fakeSubmission(creator, submitter, { tag: 'submitted', nonce: 3n, fee: 10n ** 15n })
    const refunded = await fundJob(creator, { deadline: soon, nonce: 4n })
    // a job this peer cannot take (more VRAM than it has): known, never worked on here
    const unmatched = await fundJob(creator, { deadline: soon, nonce: 5n, minVramGb: 4096 })
    const unfunded = testJob(1, 2)
    const withDeadline = (spec: JobSpec): JobSpec => ({ ...spec, deadline: soon })
    const jobs = [
      { jobId: open.jobId, spec: open.spec, specCid: open.specCid },
      { jobId: later.jobId, spec: later.spec, specCid: later.specCid },
      { jobId: submitted, spec: withDeadline(open.spec), specCid: open.specCid },
      { jobId: unfunded.jobId, spec: withDeadline(unfunded.spec), specCid: unfunded.specCid },
      { jobId: refunded.jobId, spec: refunded.spec, specCid: refunded.specCid }
    ]
    const complete = new Set<string>()
    p.processor.addEventListener('job:complete', (evt) => { complete.add(evt.detail.jobId.toLowerCase()) })
    for (const job of [...jobs, unmatched]) await p.processor.announceJob(job.spec, job.jobId, job.specCid)
    await waitFor(() => jobs.every(j => complete.has(j.jobId.toLowerCase())), { timeoutMs: 30_000, what: 'the five jobs to be done here' })
    for (const job of jobs) expect(docsOf(p, job.jobId).length).toBeGreaterThanOrEqual(1)

    const clock = chainClock({ chain: creator })
    const expiry = retireExpiredJobs({ funded, processor: p.processor, docs: p.docs, clock: clock.now }, { intervalMs: 3_600_000 })
    try {
      await clock.refresh()
      // not due yet: nothing is read, nothing retired
      expect(await expiry.check()).toEqual([])
      await creator.provider.send('evm_increaseTime', [900])
      await creator.provider.send('evm_mine', [])
      await creator.refund(refunded.jobId)
      await creator.refund(unmatched.jobId)
      await clock.refresh()
      const retired = await expiry.check()
      expect(retired.map(id => id.toLowerCase()).sort()).toEqual([open.jobId, unfunded.jobId].map(id => id.toLowerCase()).sort())
      await waitFor(() => docsOf(p, open.jobId).length === 0 && docsOf(p, unfunded.jobId).length === 0, { timeoutMs: 10_000, what: 'the expired jobs\' docs closed' })
      const states = new Map(p.processor.knownJobs().map(j => [j.jobId.toLowerCase(), j.state]))
      expect(states.get(open.jobId.toLowerCase())).toBe('expired')
      expect(states.get(unfunded.jobId.toLowerCase())).toBe('expired')
      // a job submitted before its deadline goes on to its verification; one not due is untouched
      expect(states.get(submitted.toLowerCase())).toBe('complete')
      expect(states.get(later.jobId.toLowerCase())).toBe('complete')
      expect(docsOf(p, submitted).length).toBeGreaterThanOrEqual(1)
      expect(docsOf(p, later.jobId).length).toBeGreaterThanOrEqual(1)
      // a refunded one is the settlement's to retire (after this peer's claims): left here, and read once only
      expect(states.get(refunded.jobId.toLowerCase())).toBe('complete')
      // one never worked on here is listed as settled
      expect(states.get(unmatched.jobId.toLowerCase())).toBe('settled')
      // looked at again: nothing more to retire; the expired and the refunded ones are not read again, the submitted
      // one is (its verification may still end it either way)
      const before = new Map(reads)
      expect(await expiry.check()).toEqual([])
      expect(reads.get(refunded.jobId.toLowerCase())).toBe(1)
      expect(reads.get(unmatched.jobId.toLowerCase())).toBe(1)
      expect(reads.get(open.jobId.toLowerCase())).toBe(before.get(open.jobId.toLowerCase()))
      expect(reads.get(submitted.toLowerCase())).toBe((before.get(submitted.toLowerCase()) ?? 0) + 1)
    } finally {
      expiry.stop()
      funded.stop()
    }
  })
})
