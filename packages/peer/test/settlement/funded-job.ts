import { testJob } from '@jobmesh/testkit'
import { keccak256, toUtf8Bytes } from 'ethers'
import { encodeJobSpec, parseJobSpec } from '../../src/protocol/index.js'
import { rawBlockCid } from '../../src/storage/index.js'
import type { JobSpec } from '../../src/protocol/index.js'
import type { ChainClient } from '@jobmesh/contracts'

/**
 * A job of `creator` funded on chain as the SDK creates one: a spec (a test job's, 1 MacroJob of 2 MicroJobs,
 * `verifiers` k) whose canonical bytes' CID is the `specCid` the escrow records. Its code is `codeUri` (default a
 * CID nobody serves).
 */
export async function fundJob (creator: ChainClient, init: { verifiers?: number, nonce?: bigint, codeUri?: string } = {}): Promise<{ jobId: string, spec: JobSpec, specCid: string }> {
  const input = testJob(1, 2).input
  const fee = 10n ** 16n
  const spec = parseJobSpec({
    ...input,
    price: fee,
    codeUri: init.codeUri ?? input.codeUri,
    creator: await creator.address(),
    verifiers: init.verifiers ?? 3,
    deadline: Date.now() + 3_600_000
  })
  // the CID the SDK's upload gives the spec (one raw block, as `addRaw` stores it)
  const specCid = rawBlockCid(encodeJobSpec(spec)).toString()
  const { jobId } = await creator.createJob({
    specCid, nonce: init.nonce ?? 1n, jobRoot: keccak256(toUtf8Bytes(`jobs ${specCid}`)), seed: spec.seed, macroJobs: 1, microJobsPerMacro: 2,
    minVramGb: spec.requirements.minVramGb, k: spec.verifiers, deadline: Math.ceil(spec.deadline / 1000), secondsPerMicroJob: 1
  }, fee)
  return { jobId, spec, specCid }
}
