import type { PeerBindingKey } from '../peer-binding.js'
import type { JOB_STATUS_NAMES } from '../constants.js'

// Inputs and return values of the NodeRegistry and JobEscrow actions (escrow-reads.ts, escrow-writes.ts,
// registry-actions.ts).

/** Status names of `JobEscrow.Status`. */
export type JobStatusName = typeof JOB_STATUS_NAMES[number]

/** Input of {@link ChainClient.createJob}; GPU model and model are names (hashed with {@link labelId}). */
export interface CreateJobInput {
  specCid: string
  nonce: bigint
  jobRoot: string
  seed: bigint
  macroJobs: number
  microJobsPerMacro: number
  minVramGb: number
  gpuModel?: string
  modelId?: string
  /** All verifiers on one GPU model: only with `gpuModel` (`IdenticalHardwareNeedsModel` otherwise). */
  identicalHardware?: boolean
  k: number
  /** MicroJobs sampled per MacroJob (the verification level), default 1. */
  samples?: number
  /** Unix seconds. */
  deadline: number
  secondsPerMicroJob: number
}

/** A job as `JobEscrow.jobs(jobId)` returns it. */
export interface EscrowJobState {
  jobId: string
  status: JobStatusName
  creator: string
  k: number
  /** MicroJobs sampled per MacroJob. */
  samples: number
  assigned: number
  commits: number
  reveals: number
  proven: boolean
  /** Unix seconds. */
  deadline: number
  jobRoot: string
  seed: bigint
  fee: bigint
  macroJobs: number
  microJobsPerMacro: number
  /** The creator's run-time hint: the commit window gives each sampled re-run this long ({@link rerunAllowanceMs}). */
  secondsPerMicroJob: number
  /** The sample is fixed: every drawn verifier revealed its seed, or the seed window was closed. */
  entropySet: boolean
  /** The verifiers were drawn (the draw blockhash is set). */
  drawn: boolean
  /** blockhash(submitBlock + 1); bytes32(0) before the draw. */
  drawEntropy: string
  /** Last block in which the drawn verifiers reveal their seeds (0 before all k are drawn). */
  seedDeadline: number
  /** Verifier seeds revealed this round. */
  seeds: number
  rejections: number
  submitter: string
  submitBlock: number
  commitDeadline: number
  revealDeadline: number
  processorPaid: bigint
  /** Unix seconds of the release, 0 before. */
  releasedAt: number
  resultRoot: string
  /** Meaningful once `entropySet`: keccak256(drawEntropy, the verifiers' seeds). */
  sampleEntropy: string
  claimedHash: string
  /** Hardware the job needs: its verification-queue group is (minVramGb, chosenModel or else gpuModel). */
  minVramGb: number
  gpuModel: string
  /** The GPU model an `identical` job's first verifier fixed (bytes32(0) before). */
  chosenModel: string
}

export interface VerifierState {
  node: string
  commitOrder: number
  revealOrder: number
  committed: boolean
  revealed: boolean
  /** 0: the sample matched; else 1 + the first sample position it found wrong. */
  badPos: number
  processorBlame: boolean
  /** The first 4 bytes of its revealed execution digest, as a number (0 before the reveal). */
  digestTag: number
  /** Revealed its seed this round (a verifier without one may not vote). */
  seeded: boolean
}

/** `ResultLeaf` of `proveSample`, `claim` and a reveal. */
export interface SampleLeaf {
  microId: string
  macroIndex: number
  index: number
  outputHash: string
  payee: string
}

/** `JobEscrow.Reveal`: a verifier's vote. */
export interface RevealInput {
  salt: string
  processorBlame: boolean
  /** The digest of this verifier's re-runs of the sample (`sampleExecutionDigest`). */
  executionDigest: string
  /** The leaf hashes this verifier expects, in sample order. */
  expected: string[]
  /** The proven leaf hashes (from `SampleProven`), in sample order. */
  proven: string[]
  /** The proven leaf at the first position where `expected` differs (any leaf when none differs). */
  badLeaf: SampleLeaf
}

export interface RegisterInput {
  peerId: string
  /**
   * The PeerId's Ed25519 private key: it signs the binding of the PeerId to this address (`signPeerBinding`), which
   * `NodeRegistry.register` verifies. Only needed when the node is not registered yet.
   */
  privateKey: PeerBindingKey
  /** GPU model name (hashed with {@link labelId}); must not be empty. */
  gpuModel: string
  vramGb: number
  /** Stake the node should have at least (wei). */
  stake: bigint
}

export interface RegisterResult {
  /** True when this call registered the node. */
  registered: boolean
  /** Stake added by this call (wei). */
  stakeAdded: bigint
  /** Stake after the call (wei). */
  stake: bigint
  /** True when the registry had paused the node and this call resumed it. */
  resumed: boolean
  /**
   * True when the node asked to exit (`requestExit`): it is left as it is (not resumed, no stake added). It is out of
   * every draw and can lock no bond, so its peer only settles and claims what it earned.
   */
  exiting: boolean
}

/** A node's committed verifier seed (`JobEscrow.seedCommits`). */
export interface SeedCommitState {
  /** keccak256(abi.encode(seed)); bytes32(0) when the node never committed one. */
  hash: string
  /** The block it was committed in: it counts for draws in later blocks only. */
  blockNumber: number
  /** The node's own label of the seed (+1 on each reveal). */
  index: number
}

/**
 * The network's pricing parameters, as the escrow holds them (`JobEscrow.pricing()`, set at deployment): a job's
 * estimated time is `overheadMs + microJobs * msPerMicroJob` milliseconds. Both are uint32; `msPerMicroJob > 0`.
 */
export interface PricingParams {
  /** Fixed per-job overhead (download, preparation, waiting for verification, upload), ms. */
  overheadMs: number
  /** Network time of one MicroJob, ms. */
  msPerMicroJob: number
}

/**
 * What `JobEscrow.createJob` accepts of a job, as the deployed escrow holds it: `minVerifiers <= k <= maxVerifiers`
 * (`InvalidVerifierCount(k, min, max)` otherwise) and a deadline at most `maxDeadlineSeconds` after the block that
 * creates the job (`InvalidDeadline()` otherwise).
 */
/** What sizes a job's commit window (`JobEscrow.params()` and `MAX_RERUN_BLOCKS`), see {@link rerunAllowanceMs}. */
export interface CommitTimes {
  /** `params().commitWindow`: blocks every job's commit window has, besides its sample's re-run time. */
  commitWindowBlocks: number
  /** `params().secondsPerBlock`: turns the sample's re-run seconds into blocks. */
  secondsPerBlock: number
  /** `MAX_RERUN_BLOCKS`: the re-run time's cap, in blocks. */
  maxRerunBlocks: number
}

export interface JobLimits {
  /** `JobEscrow.MIN_VERIFIERS`: fewest verifiers a job may ask for. */
  minVerifiers: number
  /** `params().maxVerifiers`: most verifiers a job may ask for (a uint8, set at deployment). */
  maxVerifiers: number
  /** `params().maxDeadline`: how far after its creation a job's deadline may be, in seconds. */
  maxDeadlineSeconds: number
  /** `params().minFee`: the least a verifier's share of a fee may be worth, in wei ({@link minimumJobFee}). */
  minFee: bigint
}
