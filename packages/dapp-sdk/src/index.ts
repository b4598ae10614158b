/**
 * @packageDocumentation
 *
 * `@jobmesh/dapp-sdk`: describe a job, upload its code and data, fund it in the escrow, announce it, follow its
 * progress, wait for the escrow's release and download the verified outputs. One import also gives the protocol
 * core (spec validation, ids, slicing, Merkle trees, pricing) re-exported from `@jobmesh/peer`.
 *
 * @example
 * ```ts
 * import { createJobClient } from '@jobmesh/dapp-sdk'
 *
 * const client = await createJobClient({
 *   rpcUrl: 'http://127.0.0.1:8545',
 *   signer: process.env.JOBMESH_PRIVATE_KEY,
 *   deployment: JSON.parse(await readFile('deployments/31337.json', 'utf8')),
 *   bootstrap: ['/ip4/127.0.0.1/tcp/4001/p2p/12D3KooW...']
 * })
 * const job = await client.submit({
 *   code: 'build/mandelbrot.wasm',
 *   data: 'data/tiles.bin',
 *   blockSize: 64,
 *   slicing: { macroJobs: 4, microJobsPerMacro: 16, blocksPerMicro: 1 },
 *   price: 10n ** 16n
 * }, { onProgress: ({ stage }) => console.log(stage) })
 * for await (const { done, total } of client.progress(job.jobId)) console.log(`${done}/${total}`)
 * await client.waitForRelease(job.jobId, { timeoutMs: 600_000 })
 * const outputs = await client.results(job.jobId) // a MicroJobOutput per MicroJob: .bytes, sha256-checked
 * await client.stop()
 * ```
 */

export { createJobClient } from './client.js'
export type { JobClient, JobClientInit } from './client.js'
export { createEscrowClient } from './escrow-client.js'
export type { EscrowClient, EscrowClientInit } from './escrow-client.js'
export type { SubmitInput } from './spec.js'
export type { InputRefusal, SubmitOptions, SubmitProgress, SubmitStage, SubmittedJob } from './submit.js'
export type { Refund, RefundOptions, RefundProgress, RefundStage } from './refund.js'
export type { ListedJob } from './jobs.js'
export type { BondableNodes } from '@jobmesh/peer/settlement'
export type { ProgressOptions, ProgressUpdate } from './progress.js'
export type { Release, WaitForReleaseOptions } from './release.js'
export type { MicroJobOutput, ResultsOptions } from './results.js'
export type { ContentInput } from './content.js'
export type { DescribeOptions, PeerMatching } from './describe.js'
export type { DeploymentRef } from './chain/connection.js'
export { createJobParams } from './job-params.js'
export { labelId } from '@jobmesh/contracts'
export { samplesFor, priceFor, detectionProbability, verificationIssue, MAX_SAMPLE_LEAVES } from './verification.js'
export type { VerificationLevel } from './verification.js'
export type { CreateJobInput, EscrowJobState as EscrowJob, JobStatusName } from '@jobmesh/contracts'
export * from './errors.js'
export { checkCode } from './code-check.js'
export * from './constants.js'

// the protocol core, so a DApp needs one import
export {
  parseJobSpec, encodeJobSpec, decodeJobSpec, microJobCount, computeJobId, computeMacroId,
  computeMicroId, sliceJob, jobTree, resultTree, verifyProof, taskValue, taskValueToNumber,
  DEFAULT_PRICING, validationIndex, verifierHash, InvalidJobSpecError, JOB_SPEC_VERSION,
  ALLOWED_URI_SCHEMES
} from '@jobmesh/peer/protocol'
export type { JobStory, PeerMatch, MismatchReason } from '@jobmesh/peer/observe'
export type {
  JobSpec, SlicingSpec, Requirements, Estimate, PricingParams, Slicing, MacroJobDescriptor,
  MicroJobDescriptor, ResultLeaf, MerkleTree, SpecIssue
} from '@jobmesh/peer/protocol'
export { JobStatus } from '@jobmesh/contracts'
export type { Deployment } from '@jobmesh/contracts'
