import { registerNodes, startChain } from '@jobmesh/testkit/anvil'
import { stopList, testJob, waitFor } from '@jobmesh/testkit'
import { rerunAllowanceMs } from '@jobmesh/contracts'
import { parseEther } from 'ethers'
import { afterEach, describe, expect, it } from 'vitest'
import { fundedJobs } from '../../src/settlement/index.js'
import { UNKNOWN_JOB_GIVE_UP_MS } from '../../src/settlement/constants.js'
import { fakeSubmission } from './fake-submission.js'
import { announceServedJob, chainPeer, fundJob } from './funded-job.js'

const running = stopList()
afterEach(running.stopAll)

describe('fundedJobs', () => {
  it('a peer works only on a job the escrow holds open, created with the announced spec', async () => {
    const chain = running.add(await startChain({ accounts: 3 }))
    const [creator, submitter] = chain.clients
    const opened: string[] = []
    const funded = fundedJobs({ chain: creator }, { onOpen: (jobId) => { opened.push(jobId) } })
    try {
      const open = await fundJob(creator)
      // not known yet: not worked on, and read in the background; once read, open (told once)
      expect(funded.isOpen(open)).toBe(false)
      await waitFor(() => funded.isOpen(open), { what: 'the open job read', timeoutMs: 10_000 })
      expect(await funded.check(open)).toBe('Open')
      expect(opened).toEqual([open.jobId.toLowerCase()])
      // an announcement of a job never funded, or of a funded job's id with other code: never worked on
      const unfunded = { jobId: '0x' + 'ab'.repeat(32), spec: open.spec }
      expect(await funded.check(unfunded)).toBe('None')
      expect(funded.isOpen(unfunded)).toBe(false)
      const forged = { jobId: open.jobId, spec: { ...open.spec, codeUri: 'ipfs://bafkreiattackerscodeattackerscodeattackerscodeattacker' } }
      expect(await funded.check(forged)).toBe('forged')
      expect(funded.isOpen(forged)).toBe(false)
      // the forged announcement does not stand in the way of the real one
      expect(funded.isOpen(open)).toBe(true)
      // a job whose results are submitted (by a registered node) is not open any more
      await registerNodes([submitter], 10n ** 18n)
      const submitted = await fakeSubmission(creator, submitter, { tag: 'submitted', nonce: 2n, fee: 10n ** 15n })
      expect(await funded.check({ jobId: submitted, spec: open.spec })).toBe('Submitted')
      expect(funded.isOpen({ jobId: submitted, spec: open.spec })).toBe(false)
    } finally {
      funded.stop()
    }
  })

  it('an Open job rejected 255 times is not worked on: the escrow takes no more results for it (TooManyRounds), only a refund', async () => {
    const chain = running.add(await startChain({ accounts: 2 }))
    const [creator] = chain.clients
    const open = await fundJob(creator)
    // the real escrow's record, read through a client that reports the counter at its end (reaching it takes 255
    // rejected rounds: RoundOverflow.t.sol)
    const spent = Object.assign(Object.create(creator) as typeof creator, {
      job: async (...args: Parameters<typeof creator.job>) => ({ ...await creator.job(...args), rejections: 255 })
    })
    const funded = fundedJobs({ chain: spent })
    try {
      expect(await funded.check(open)).toBe('exhausted')
      expect(funded.isOpen(open)).toBe(false)
      // one rejection less: still worked on
      const live = fundedJobs({ chain: Object.assign(Object.create(creator) as typeof creator, {
        job: async (...args: Parameters<typeof creator.job>) => ({ ...await creator.job(...args), rejections: 254 })
      }) })
      try {
        expect(await live.check(open)).toBe('Open')
      } finally {
        live.stop()
      }
    } finally {
      funded.stop()
    }
  })

  it('a job whose run-time hint on chain is below its spec\'s estimate is not worked on; an open one\'s runs are bounded by its commit window', async () => {
    const chain = running.add(await startChain({ accounts: 2 }))
    const [creator] = chain.clients
    const funded = fundedJobs({ chain: creator })
    try {
      // the spec estimates 1 s per MicroJob; the creator's own client tells the escrow 0 s: its verifiers would get
      // the bare commit window for every re-run, miss it, and be slashed and paused
      const lying = await fundJob(creator, { secondsPerMicroJob: 0 })
      expect(await funded.check(lying)).toBe('forged')
      expect(funded.isOpen(lying)).toBe(false)
      const honest = await fundJob(creator, { nonce: 2n })
      expect(await funded.check(honest)).toBe('Open')
      const state = await creator.job(honest.jobId)
      expect(state.secondsPerMicroJob).toBe(1)
      const limit = funded.runLimitMs(honest.jobId)
      expect(limit).toBe(rerunAllowanceMs(state, await creator.commitTimes()))
      expect(limit).toBeGreaterThan(0)
      expect(funded.runLimitMs('0x' + 'cd'.repeat(32))).toBeUndefined()
      // refunded after its deadline: settled for good (`jobmesh status` shows it so on a peer that never worked on it)
      expect(funded.settled(honest.jobId)).toBe(false)
      await creator.provider.send('evm_increaseTime', [7_200])
      await creator.refund(honest.jobId)
      expect(await funded.check(honest)).toBe('Refunded')
      expect(funded.settled(honest.jobId)).toBe(true)
    } finally {
      funded.stop()
    }
  })

  it('a peer starts on a job as soon as the read finds it open, not after an idle pause', async () => {
    const chain = running.add(await startChain({ accounts: 5 }))
    // four active nodes: the job's three verifiers can be drawn besides its submitter
    await registerNodes(chain.clients.slice(2, 5), parseEther('0.1'))
    // an idle pause far longer than the wait below: only the read's wake-up can start the work in time
    const peer = running.add(await chainPeer(chain, { processor: { idleMs: 600_000 } }))
    const { job, owned } = await announceServedJob(peer, chain.clients[0], 3)
    await waitFor(() => owned.includes(job.jobId), { what: 'the peer owning the job\'s MacroJob', timeoutMs: 20_000 })
  })

  it('reads a job the escrow does not know less and less often, then not at all', async () => {
    let now = 0
    const reads: number[] = []
    // a chain that answers at once: a read is done once the promises already queued have run
    const chain = {
      job: async () => { reads.push(now); return { status: 'None' as const, rejections: 0 } },
      jobCreated: async () => undefined
    }
    const settled = async (): Promise<void> => { await new Promise(resolve => setImmediate(resolve)) }
    const funded = fundedJobs({ chain, clock: () => now }, { recheckMs: 1_000 })
    const { jobId, spec } = testJob(1, 2)
    try {
      // what a peer's loop does: ask on each choice (here every 500 ms); a read runs in the background
      for (; now <= UNKNOWN_JOB_GIVE_UP_MS + 600_000; now += 500) {
        expect(funded.isOpen({ jobId, spec })).toBe(false)
        await settled()
      }
      // 1, 2, 4 ... s apart (not one read per second for good), none once the first None is 10 min old
      const gaps = reads.slice(1).map((t, i) => t - reads[i])
      expect(gaps).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 128_000, 256_000])
      expect(reads[reads.length - 1]).toBeLessThan(UNKNOWN_JOB_GIVE_UP_MS)
    } finally {
      funded.stop()
    }
  })

  it('tells the round on chain, not the announced one: read again when stale, or at once for a higher round never refuted', async () => {
    let now = 0
    let rejections = 0
    let status: 'Open' | 'None' | 'Released' = 'Open'
    const reads: number[] = []
    const chain = {
      job: async () => { reads.push(now); return { status, rejections: status === 'None' ? 0 : rejections } },
      jobCreated: async () => undefined
    }
    const settled = async (): Promise<void> => { await new Promise(resolve => setImmediate(resolve)) }
    const moved: Array<[string, number]> = []
    const funded = fundedJobs({ chain, clock: () => now }, { recheckMs: 60_000, onRound: (jobId, round) => { moved.push([jobId, round]) } })
    const { jobId, spec } = testJob(1, 2)
    const id = jobId.toLowerCase()
    try {
      // not read yet: unknown (the announcement's round stands meanwhile)
      expect(funded.round(jobId, 3)).toBeUndefined()
      expect(reads).toEqual([])
      funded.isOpen({ jobId, spec })
      await settled()
      expect(funded.round(jobId)).toBe(0)
      expect(moved).toEqual([[id, 0]])
      // a forged round 3 is answered with the chain's 0, read again at most once a second, and once refuted not again
      expect(funded.round(jobId, 3)).toBe(0)
      await settled()
      expect(reads).toEqual([0])
      now = 1_000
      expect(funded.round(jobId, 3)).toBe(0)
      expect(funded.round(jobId, 3)).toBe(0)
      await settled()
      now = 2_000
      expect(funded.round(jobId, 3)).toBe(0)
      expect(funded.round(jobId, 2)).toBe(0)
      await settled()
      expect(reads).toEqual([0, 1_000])
      // a rejection on chain: a processor that finished round 0 asks of the round it holds, and the stale read is redone
      rejections = 1
      now = 61_000
      expect(funded.round(jobId, 0)).toBe(0)
      await settled()
      expect(funded.round(jobId, 0)).toBe(1)
      expect(moved).toEqual([[id, 0], [id, 1]])
      // an RPC node that lags behind answers round 0: the round does not go back
      rejections = 0
      now = 122_000
      funded.round(jobId, 1)
      await settled()
      expect(funded.round(jobId, 1)).toBe(1)
      expect(moved).toEqual([[id, 0], [id, 1]])
      // released: never read again
      status = 'Released'
      now = 183_000
      funded.round(jobId, 1)
      await settled()
      now = 500_000
      funded.round(jobId, 7)
      await settled()
      expect(reads).toEqual([0, 1_000, 61_000, 122_000, 183_000])
      // an id the escrow does not know, announced with round after round: read once (by the funded check), never for a round
      const unfunded = testJob(1, 2)
      status = 'None'
      funded.isOpen(unfunded)
      await settled()
      for (let r = 1; r <= 5; r++) {
        now += 70_000
        expect(funded.round(unfunded.jobId, r)).toBe(0)
        await settled()
      }
      expect(reads).toEqual([0, 1_000, 61_000, 122_000, 183_000, 500_000])
    } finally {
      funded.stop()
    }
  })
})
