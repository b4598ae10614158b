import { registerNodes, startChain } from '@jobmesh/testkit/anvil'
import { waitFor } from '@jobmesh/testkit'
import { keccak256, toUtf8Bytes } from 'ethers'
import { afterEach, describe, expect, it } from 'vitest'
import { fundedJobs } from '../../src/settlement/index.js'
import { fakeSubmission } from './fake-submission.js'
import type { ChainClient } from '@jobmesh/contracts'
import type { TestChain } from '@jobmesh/testkit/anvil'

let chain: TestChain | undefined

afterEach(async () => {
  await chain?.stop()
  chain = undefined
})

/** An Open job of `creator` created with spec `bafy-<tag>`. */
async function openJob (creator: ChainClient, tag: string): Promise<string> {
  const head = await creator.provider.getBlock('latest')
  const { jobId } = await creator.createJob({
    specCid: `bafy-${tag}`, nonce: 1n, jobRoot: keccak256(toUtf8Bytes(`jobs ${tag}`)), seed: 7n, macroJobs: 1, microJobsPerMacro: 2,
    minVramGb: 0, k: 2, deadline: Number(head?.timestamp ?? 0) + 86_400, secondsPerMicroJob: 1
  }, 10n ** 15n)
  return jobId
}

describe('fundedJobs', () => {
  it('a peer works only on a job the escrow holds open with the announced spec', async () => {
    chain = await startChain({ accounts: 3 })
    const [creator, submitter] = chain.clients
    const funded = fundedJobs({ chain: creator })
    try {
      const open = { jobId: await openJob(creator, 'open'), specCid: 'bafy-open' }
      // not known yet: not worked on, and read in the background; once read, open
      expect(funded.isOpen(open)).toBe(false)
      await waitFor(() => funded.isOpen(open), { what: 'the open job read', timeoutMs: 10_000 })
      // an announcement of a job never funded, or of a funded job's id with other code: never worked on
      expect(await funded.check({ jobId: '0x' + 'ab'.repeat(32), specCid: 'bafy-open' })).toBe('None')
      expect(funded.isOpen({ jobId: '0x' + 'ab'.repeat(32), specCid: 'bafy-open' })).toBe(false)
      expect(await funded.check({ ...open, specCid: 'bafy-other-code' })).toBe('forged')
      expect(funded.isOpen({ ...open, specCid: 'bafy-other-code' })).toBe(false)
      // a job whose results are submitted (by a registered node) is not open any more
      await registerNodes([submitter], 10n ** 18n)
      const submitted = await fakeSubmission(creator, submitter, { tag: 'submitted', nonce: 2n, fee: 10n ** 15n })
      expect(await funded.check({ jobId: submitted, specCid: 'bafy-submitted' })).toBe('Submitted')
      expect(funded.isOpen({ jobId: submitted, specCid: 'bafy-submitted' })).toBe(false)
    } finally {
      funded.stop()
    }
  })
})
