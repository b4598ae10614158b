import { ZeroHash } from 'ethers'
import { JOB_STATUS_NAMES } from '../../constants.js'
import type { CallOptions } from '../../client/client-types.js'
import type { ChainContext } from '../../client/context.js'
import type { EscrowJobState } from '../../client/contract-types.js'

/** `JobEscrow.jobs(jobId)`: the job as the escrow stores it (`status` `None` for an unknown id). @throws the chain errors */
export async function job (client: Pick<ChainContext, 'contracts' | 'read'>, jobId: string, options?: CallOptions): Promise<EscrowJobState> {
  const j = await client.read(`JobEscrow.jobs(${jobId})`, () => client.contracts.jobEscrow.jobs(jobId), options)
  return {
    jobId: jobId.toLowerCase(),
    status: JOB_STATUS_NAMES[Number(j.status)] ?? 'None',
    creator: j.creator,
    k: Number(j.k),
    samples: Number(j.samples),
    assigned: Number(j.assigned),
    commits: Number(j.commits),
    reveals: Number(j.reveals),
    proven: j.proven,
    deadline: Number(j.deadline),
    jobRoot: j.jobRoot,
    seed: j.seed,
    fee: j.fee,
    macroJobs: Number(j.macroJobs),
    microJobsPerMacro: Number(j.microJobsPerMacro),
    secondsPerMicroJob: Number(j.secondsPerMicroJob),
    entropySet: j.entropySet,
    drawn: j.drawEntropy !== ZeroHash,
    drawEntropy: j.drawEntropy,
    seedDeadline: Number(j.seedDeadline),
    seeds: Number(j.seeds),
    rejections: Number(j.rejections),
    submitter: j.submitter,
    submitBlock: Number(j.submitBlock),
    commitDeadline: Number(j.commitDeadline),
    revealDeadline: Number(j.revealDeadline),
    processorPaid: j.processorPaid,
    releasedAt: Number(j.releasedAt),
    resultRoot: j.resultRoot,
    sampleEntropy: j.sampleEntropy,
    claimedHash: j.claimedHash,
    minVramGb: Number(j.minVramGb),
    gpuModel: j.gpuModel,
    chosenModel: j.chosenModel
  }
}
