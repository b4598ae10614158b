import { keccak256, toUtf8Bytes } from 'ethers'
import { resultCommitment } from '../../src/settlement/index.js'
import type { ChainClient } from '@jobmesh/contracts'

/**
 * A job of `creator` (one MacroJob of 2 MicroJobs, `k` verifiers) whose results `submitter` commits and submits with
 * a made-up root and no manifest, naming `payees` (`joiners` join the job first): for the draw and seed steps, which
 * never look at the results.
 */
export async function fakeSubmission (creator: ChainClient, submitter: ChainClient, init: { tag: string, nonce?: bigint, k?: number, fee: bigint, payees?: string[], joiners?: ChainClient[] }): Promise<string> {
  const head = await creator.provider.getBlock('latest')
  const nonce = init.nonce ?? 1n
  const { jobId } = await creator.createJob({
    specCid: `bafy-${init.tag}`, nonce, jobRoot: keccak256(toUtf8Bytes(`jobs ${init.tag}`)), seed: 7n, macroJobs: 1, microJobsPerMacro: 2,
    minVramGb: 0, k: init.k ?? 3, deadline: Number(head?.timestamp ?? 0) + 86_400, secondsPerMicroJob: 1
  }, init.fee)
  for (const j of init.joiners ?? []) await j.joinJob(jobId)
  const root = keccak256(toUtf8Bytes(`results ${init.tag}`))
  await submitter.commitResults(jobId, resultCommitment(jobId, 0, root, '', await submitter.address()))
  await submitter.submitResults(jobId, { resultRoot: root, manifestCid: '', payees: init.payees })
  return jobId
}
