import { generateKeyPair } from '@libp2p/crypto/keys'
import { createChainClient } from '@jobmesh/contracts'
import { publishProfile } from '@jobmesh/peer/jobs'
import { waitFor } from '@jobmesh/testkit'
import { keccak256 } from 'ethers'
import { afterEach, describe, expect, it } from 'vitest'
import { fundJob } from '../../peer/test/settlement/funded-job.js'
import { run } from '../src/cli/program.js'
import { cleanup, connectFlags, registerNode, setup } from './helpers.js'
import type { Env } from './helpers.js'

afterEach(cleanup)

/**
 * A job funded on chain (by account 2) whose spec nobody holds and that no peer saw announced: what a `submit` killed
 * between its funding transaction and its announcement leaves behind.
 */
async function strandedJob (env: Env, verifiers = 3): Promise<{ jobId: string, specCid: string }> {
  const creator = createChainClient({ provider: env.provider, signer: env.wallet(2), deployment: env.deployment })
  const { jobId, specCid } = await fundJob(creator, { verifiers })
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

  it('wait warns that no peer saw the job announced and what to do, as it warns of too few nodes', async () => {
    const env = await setup()
    // enough registered nodes with stake for its bond, and their profiles known: only the announcement is missing
    const gpu = keccak256(new TextEncoder().encode('any-gpu'))
    for (const i of [2, 3, 4, 5]) {
      await registerNode(env, i, gpu, 8, 10n ** 17n)
      await publishProfile({ docs: env.peerDocs, privateKey: await generateKeyPair('Ed25519') }, { address: await env.wallet(i).getAddress(), gpuModel: 'cpu', vramGb: 8 })
    }
    const job = await strandedJob(env)
    await waitFor(async () => (await env.client.matchingPeers({})).peers === 4, { timeoutMs: 20_000, what: 'the four profiles at the client' })
    const { deadline } = await env.client.status(job.jobId)
    const addr = env.peer.libp2p.getMultiaddrs().find(m => !m.toString().includes('/ws'))?.toString() ?? ''
    const err: string[] = []
    const code = await run(['wait', job.jobId, '--timeout', '1', ...await connectFlags(env), '--bootstrap', addr], { out: () => {}, err: (l) => err.push(l) })
    expect(code).toBe(1)
    expect(err[0]).toBe(`warning: no peer has seen job ${job.jobId} announced (the process that submitted it stopped before announcing it?): ` +
      'no peer will work on it; submitting it again does not announce it (a new submit creates and pays for another job): take the fee back ' +
      `after its deadline (${new Date(deadline * 1000).toISOString()}) with jobmesh-dapp refund ${job.jobId}`)
    expect(err.at(-1)).toMatch(/^ReleaseTimeoutError/)
  })
})
