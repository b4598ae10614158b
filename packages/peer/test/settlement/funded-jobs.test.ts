import { registerNodes, startChain } from '@jobmesh/testkit/anvil'
import { waitFor } from '@jobmesh/testkit'
import { afterEach, describe, expect, it } from 'vitest'
import { fundedJobs } from '../../src/settlement/index.js'
import { fakeSubmission } from './fake-submission.js'
import { fundJob } from './funded-job.js'
import type { TestChain } from '@jobmesh/testkit/anvil'

let chain: TestChain | undefined

afterEach(async () => {
  await chain?.stop()
  chain = undefined
})

describe('fundedJobs', () => {
  it('a peer works only on a job the escrow holds open, created with the announced spec', async () => {
    chain = await startChain({ accounts: 3 })
    const [creator, submitter] = chain.clients
    const funded = fundedJobs({ chain: creator })
    try {
      const open = await fundJob(creator)
      // not known yet: not worked on, and read in the background; once read, open
      expect(funded.isOpen(open)).toBe(false)
      await waitFor(() => funded.isOpen(open), { what: 'the open job read', timeoutMs: 10_000 })
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
})
