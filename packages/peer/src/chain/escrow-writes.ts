import { ZeroHash } from 'ethers'
import { labelId } from './labels.js'
import type { ChainClient } from './client-types.js'
import type { ChainContext } from './context.js'
import type { SampleLeaf } from './contract-types.js'

export type EscrowWrites = Pick<ChainClient, 'createJob' | 'commitResults' | 'submitResults' | 'selectVerifiers' | 'commitSeed' |
'revealSeed' | 'closeSeeds' | 'commit' |
'reveal' | 'proveSample' | 'settle' | 'claim' | 'sweep' | 'refund' | 'withdrawCredit'>

function leafTuple (l: SampleLeaf): [string, number, number, string, string] {
  return [l.microId, l.macroIndex, l.index, l.outputHash, l.payee]
}

/** JobEscrow transactions: create a job, submit results, verify, settle, claim, sweep, refund, withdraw. */
export function escrowWrites (context: Pick<ChainContext, 'escrowTx'>): EscrowWrites {
  const { escrowTx } = context
  return {
    async createJob (input, fee, options) {
      const params = {
        specCid: input.specCid,
        nonce: input.nonce,
        jobRoot: input.jobRoot,
        seed: input.seed,
        macroJobs: input.macroJobs,
        microJobsPerMacro: input.microJobsPerMacro,
        minVramGb: input.minVramGb,
        gpuModel: labelId(input.gpuModel),
        modelId: labelId(input.modelId),
        identicalHardware: input.identicalHardware ?? false,
        k: input.k,
        samples: input.samples ?? 1,
        deadline: input.deadline,
        secondsPerMicroJob: input.secondsPerMicroJob
      }
      const tx = await escrowTx('JobEscrow.createJob', 'createJob', [params], options, fee)
      const created = tx.events.find(e => e.name === 'JobCreated')
      return { ...tx, jobId: String(created?.args.jobId ?? ZeroHash) }
    },
    commitResults: async (jobId, commitment, options) => escrowTx('JobEscrow.commitResults', 'commitResults', [jobId, commitment], options),
    submitResults: async (jobId, input, options) =>
      escrowTx('JobEscrow.submitResults', 'submitResults', [jobId, input.resultRoot, input.manifestCid], options),
    selectVerifiers: async (jobId, options) => escrowTx('JobEscrow.selectVerifiers', 'selectVerifiers', [jobId], options),
    commitSeed: async (hash, index, options) => escrowTx('JobEscrow.commitSeed', 'commitSeed', [hash, index], options),
    revealSeed: async (jobId, seed, nextHash, options) => escrowTx('JobEscrow.revealSeed', 'revealSeed', [jobId, seed, nextHash], options),
    closeSeeds: async (jobId, options) => escrowTx('JobEscrow.closeSeeds', 'closeSeeds', [jobId], options),
    commit: async (jobId, commitment, options) => escrowTx('JobEscrow.commitVerification', 'commitVerification', [jobId, commitment], options),
    reveal: async (jobId, r, options) =>
      escrowTx('JobEscrow.revealVerification', 'revealVerification', [jobId, [r.salt, r.processorBlame, r.executionDigest, r.expected, r.proven, leafTuple(r.badLeaf)]], options),
    proveSample: async (jobId, leaves, proofs, options) =>
      escrowTx('JobEscrow.proveSample', 'proveSample', [jobId, leaves.map(leafTuple), proofs], options),
    settle: async (jobId, options) => escrowTx('JobEscrow.settle', 'settle', [jobId], options),
    claim: async (jobId, leaves, proofs, options) => escrowTx('JobEscrow.claim', 'claim', [jobId, leaves.map(leafTuple), proofs], options),
    sweep: async (jobId, options) => escrowTx('JobEscrow.sweep', 'sweep', [jobId], options),
    refund: async (jobId, options) => escrowTx('JobEscrow.refund', 'refund', [jobId], options),
    withdrawCredit: async (options) => escrowTx('JobEscrow.withdrawCredit', 'withdrawCredit', [], options)
  }
}
