import { keccak256, toUtf8Bytes } from 'ethers'
import { resultCommitment } from '../../src/settlement/index.js'
import type { ChainClient } from '@jobmesh/contracts'

/** A funded job of `creator` (one MacroJob of 2 MicroJobs, `k` verifiers, a deadline a day off); its id. */
export async function fakeJob (creator: ChainClient, init: { tag: string, nonce?: bigint, k?: number, fee: bigint }): Promise<string> {
  const head = await creator.provider.getBlock('latest')
  const { jobId } = await creator.createJob({
    specCid: `bafy-${init.tag}`, nonce: init.nonce ?? 1n, jobRoot: keccak256(toUtf8Bytes(`jobs ${init.tag}`)), seed: 7n, macroJobs: 1,
    microJobsPerMacro: 2, minVramGb: 0, k: init.k ?? 3, deadline: Number(head?.timestamp ?? 0) + 86_400, secondsPerMicroJob: 1
  }, init.fee)
  return jobId
}

/**
 * `submitter` commits and submits results of `jobId` with a made-up root (from `tag`) and no manifest, naming
 * `payees` (anvil mines a block per transaction: the submission comes from a later block than the commitment).
 */
export async function submitFake (submitter: ChainClient, jobId: string, tag: string, payees?: string[]): Promise<void> {
  const root = keccak256(toUtf8Bytes(`results ${tag}`))
  await submitter.commitResults(jobId, resultCommitment(jobId, 0, root, '', await submitter.address()))
  await submitter.submitResults(jobId, { resultRoot: root, manifestCid: '', payees })
}

/**
 * A job of `creator` ({@link fakeJob}) whose results `submitter` submits ({@link submitFake}), naming `payees`
 * (`joiners` join the job first): for the draw and seed steps, which never look at the results.
 */
export async function fakeSubmission (creator: ChainClient, submitter: ChainClient, init: { tag: string, nonce?: bigint, k?: number, fee: bigint, payees?: string[], joiners?: ChainClient[] }): Promise<string> {
  const jobId = await fakeJob(creator, init)
  for (const j of init.joiners ?? []) await j.joinJob(jobId)
  await submitFake(submitter, jobId, init.tag, init.payees)
  return jobId
}
