/**
 * Defaults and fixed network parameters of the protocol core. Values that a caller may override are applied as
 * `init.x ?? DEFAULT_X`.
 */

import { DEFAULT_ESCROW_PARAMS } from '@jobmesh/contracts'

/** JobSpec format version understood by this implementation. */
export const JOB_SPEC_VERSION = 1

/** Verifiers per job when the spec does not say. */
export const DEFAULT_VERIFIERS = 3
/** Fewest verifiers a job may have (the escrow's MIN_VERIFIERS): one verifier alone never decides a slash, and one liar never splits the vote. The escrow also refuses an even k (EvenVerifierCount: it can tie), which the SDK checks with the deployment's bounds. */
export const MIN_VERIFIERS = 3
/**
 * Most verifiers any escrow can hold: `k` is a uint8 in `JobEscrow.createJob`. A larger k could not even be encoded;
 * a deployment allows at most its `params().maxVerifiers` (7 by default), which only the chain knows.
 */
export const MAX_VERIFIERS_ENCODABLE = 255

/**
 * Rejections after which the escrow takes no more results for a job (`commitResults` reverts `TooManyRounds`: its
 * round counter is a uint8): such a job can only be refunded at its deadline, so no peer works on it.
 */
export const MAX_REJECTIONS = 255

/**
 * Blocks after a submission's entropy block during which only its submitter draws for free (the escrow's
 * DRAW_GRACE_BLOCKS); a later first draw by anyone else is paid DRAW_BOUNTY_BPS of the submitter's bond.
 */
export const DRAW_GRACE_BLOCKS = 16
/** The late-draw bounty as a share of the submitter's bond (the escrow's DRAW_BOUNTY_BPS). */
export const DRAW_BOUNTY_BPS = 500

/**
 * Largest input of one MicroJob a spec may ask for (`blockSize x blocksPerMicro`, 256 MiB): what a peer's executor
 * reads at most (`DEFAULT_MAX_INPUT_BYTES`). A larger slicing could never run anywhere.
 */
export const MAX_MICROJOB_INPUT_BYTES = 256 * 1024 * 1024

/**
 * Largest output of one MicroJob (64 MiB): what a peer's executor returns at most (`DEFAULT_MAX_OUTPUT_BYTES`), and
 * the bound of a spec that declares none (`estimate.maxOutputBytes`).
 */
export const MAX_MICROJOB_OUTPUT_BYTES = 64 * 1024 * 1024

/** Largest job spec a peer fetches or holds (bytes). */
export const MAX_SPEC_BYTES = 1024 * 1024

/**
 * How long before a job's deadline the peers stop working on it (ms): its finalizer still has to have the outputs
 * replicated (up to 2 min), submit the results and have the verifiers drawn (a few blocks) before the deadline, after
 * which the creator could refund the job with its outputs in hand. The SDK refuses a deadline closer than this.
 */
export const DEADLINE_MARGIN_MS = 180_000

/**
 * URI schemes a JobSpec may use for `codeUri` and `dataUri`. Not `file://`: a spec comes from the network, and a peer
 * would read its own file of that name (its identity key, say) into a MicroJob's input, whose output goes back to
 * the creator. The SDK still takes a local path or `file://` URL as code or data: it uploads the file and names it
 * by `ipfs://`.
 */
export const ALLOWED_URI_SCHEMES = ['ipfs:', 'https:'] as const

/** Fixed-point scale of the contract form of the selection weight. */
export const WEIGHT_SCALE = 1_000_000n

/** Stake at which the stake score saturates (10 ether, in wei). */
export const DEFAULT_STAKE_CAP = 10n * 10n ** 18n

/** Maximum task score in hundredths: 10 points in the commit round + 10 in the reveal round. */
export const MAX_SCORE = 2000

/** Windowed QoS score (hundredths) of a node with no task history. */
export const DEFAULT_INITIAL_SCORE = 1000

/** Number of recent tasks the windowed QoS score averages over. */
export const DEFAULT_QOS_WINDOW = 10

/** A node whose windowed score over a full window is below this (hundredths) is kicked out of selection. */
export const DEFAULT_KICKOUT_SCORE = 400

/** Round score, in hundredths, by submission position: 1st, 2nd, 3rd and later. A timeout scores 0. */
export const ROUND_SCORE_FIRST = 1000
export const ROUND_SCORE_SECOND = 500
export const ROUND_SCORE_LATER = 200
export const ROUND_SCORE_TIMEOUT = 0

/** The verification/task queue holds at most `alpha * nodeCount` tasks. */
export const DEFAULT_ALPHA = 2

/** Task values are wei per second, estimated times are milliseconds: value = fee * MS_PER_SECOND / estimatedMs. */
export const MS_PER_SECOND = 1000n

/**
 * The pricing parameters a peer assumes without a chain: the escrow's deployment defaults. With a chain, the peer
 * reads the deployed escrow's `pricing()` instead.
 */
export const DEFAULT_PRICING = {
  overheadMs: DEFAULT_ESCROW_PARAMS.overheadMs,
  msPerMicroJob: DEFAULT_ESCROW_PARAMS.msPerMicroJob
} as const

/** Decimals of the native token (wei -> ether) used by the display helpers. */
export const TOKEN_DECIMALS = 18

/** Domain-separation prefix of every signed record. */
export const RECORD_SIGNING_PREFIX = 'jobmesh/record/1'

/** First byte of an encoded SignedRecord. */
export const SIGNED_RECORD_VERSION = 1

/** Upper bound on an encoded signed record's parts, to refuse absurd lengths before allocating. */
export const MAX_RECORD_PAYLOAD_BYTES = 1024 * 1024

/** Largest value of a uint32 field of the contracts (the escrow's `createJob` counts, sizes and seconds). */
export const UINT32_MAX = 0xffff_ffff

/**
 * The identify agent of a node that is a DApp's client (`createNode({ role: 'client' })`, what the SDK starts), not a
 * peer: a peer's event log leaves out the connections of clients, which come and go with every `jobmesh-dapp` call.
 * Only a label for people: a node may claim any agent.
 */
export const CLIENT_AGENT = 'jobmesh-client'

/**
 * The most MicroJobs a job may have (`macroJobs x microJobsPerMacro`): every peer that learns a job slices it whole
 * (a descriptor per MicroJob) and keeps a queue, progress and a doc of that size. The escrow's minimum fee grows with
 * MicroJobs per sample only, so a creator paid ~1.6 x 10^8 wei for 10^7 MicroJobs in one MacroJob, whose slicing ran
 * every peer that learnt it out of memory (10^6: 2.6 s of CPU and 625 MB of heap each). The largest job measured is
 * 100 000 MicroJobs (docs/crdt.md, Numbers).
 */
export const MAX_MICROJOBS_PER_JOB = 100_000
