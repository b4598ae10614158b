import { ZeroHash } from 'ethers'
import { JOB_STATUS_NAMES } from './constants.js'
import type { CallOptions, ChainClient } from './client-types.js'
import type { ChainContext } from './context.js'
import type { EscrowJobState } from './contract-types.js'

export type EscrowReads = Pick<ChainClient, 'credits' | 'seedCommit' | 'isClaimed' | 'verifierShare' | 'jobStatus' | 'job' | 'verifiers' |
'validationIndex' | 'processorPool' | 'pricing'>

/** JobEscrow views: a job and its verifiers, credits, claims, shares, pricing. */
export function escrowReads (context: Pick<ChainContext, 'contracts' | 'read' | 'address'>): EscrowReads {
  const { read, address } = context
  const { jobEscrow } = context.contracts

  const job = async (jobId: string, options?: CallOptions): Promise<EscrowJobState> => {
    const j = await read(`jobs(${jobId})`, () => jobEscrow.jobs(jobId), options)
    return {
      jobId,
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

  return {
    async credits (addr, options) {
      const a = addr ?? await address()
      return read('credits', () => jobEscrow.credits(a), options)
    },
    async seedCommit (addr, options) {
      const a = addr ?? await address()
      const c = await read('seedCommits', () => jobEscrow.seedCommits(a), options)
      return { hash: c.hash, blockNumber: Number(c.blockNumber), index: Number(c.index) }
    },
    isClaimed: async (jobId, position, options) => read('isClaimed', () => jobEscrow.isClaimed(jobId, position), options),
    verifierShare: async (jobId, options) => read('verifierShare', () => jobEscrow.verifierShare(jobId), options),
    async jobStatus (jobId, options) {
      const s = await read(`statusOf(${jobId})`, () => jobEscrow.statusOf(jobId), options)
      return JOB_STATUS_NAMES[Number(s)] ?? 'None'
    },
    job,
    async verifiers (jobId, options) {
      const vs = await read('verifiersOf', () => jobEscrow.verifiersOf(jobId), options)
      return vs.map(v => ({
        node: v.node, commitOrder: Number(v.commitOrder), revealOrder: Number(v.revealOrder), committed: v.committed, revealed: v.revealed,
        badPos: Number(v.badPos), processorBlame: v.processorBlame, digestTag: Number(v.digestTag),
        seeded: v.seeded
      }))
    },
    validationIndex: async (jobId, m, options) => Number(await read('validationIndex', () => jobEscrow.validationIndex(jobId, m), options)),
    processorPool: async (jobId, options) => read('processorPool', () => jobEscrow.processorPool(jobId), options),
    pricing: async (options) => {
      const [overheadMs, msPerMicroJob] = await read('pricing', () => jobEscrow.pricing(), options)
      return { overheadMs: Number(overheadMs), msPerMicroJob: Number(msPerMicroJob) }
    }
  }
}
