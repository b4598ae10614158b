import { createChainClient } from '@jobmesh/contracts'
import { afterEach, describe, expect, it } from 'vitest'
import { fundJob } from '../../peer/test/settlement/funded-job.js'
import { cleanup, setup } from './helpers.js'
import type { Env } from './helpers.js'

afterEach(cleanup)

/**
 * A job funded on chain (by account 2) whose spec nobody holds and that no peer saw announced: what a `submit` killed
 * between its funding transaction and its announcement leaves behind.
 */
async function strandedJob (env: Env): Promise<{ jobId: string, specCid: string }> {
  const creator = createChainClient({ provider: env.provider, signer: env.wallet(2), deployment: env.deployment })
  const { jobId, specCid } = await fundJob(creator)
  return { jobId, specCid }
}

describe('a funded job nobody announced', () => {
  it('results: a spec nobody holds fails within the call\'s fetchTimeoutMs with a TimeoutError naming the spec CID', async () => {
    const env = await setup()
    const job = await strandedJob(env)
    const started = Date.now()
    // the bound of the test: without it the client's fetchTimeoutMs (60 s) would be waited for
    const err = await env.client.results(job.jobId, { fetchTimeoutMs: 2_000, signal: AbortSignal.timeout(20_000) }).catch((e: unknown) => e as Error)
    expect(err.name, err.message).toBe('TimeoutError')
    expect(err.message).toContain(job.specCid)
    expect(err.message).toContain(job.jobId)
    expect(Date.now() - started).toBeLessThan(10_000)
  })

  it('describe says no peer saw it announced, that submitting again makes another job, and that the fee comes back by a refund after the deadline', async () => {
    const env = await setup()
    const job = await strandedJob(env)
    const { deadline } = await env.client.status(job.jobId)
    const story = await env.client.describe(job.jobId, { timeoutMs: 3_000 })
    expect(story.phase).toBe('open')
    expect(story.waitingFor).toMatch(/^an announcement: the job is funded on chain but no peer has seen it announced/)
    expect(story.waitingFor).toContain('a new submit creates and pays for another job')
    expect(story.waitingFor).toContain(`refund after its deadline (${new Date(deadline * 1000).toISOString()}) (jobmesh-dapp refund ${job.jobId})`)
  })
})
