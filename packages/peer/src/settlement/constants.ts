/** Defaults of settlement; applied as `init.x ?? DEFAULT_X`. */

/** Poll interval of every settlement wait (job state, blocks), in ms. */
export const DEFAULT_SETTLEMENT_POLL_MS = 1_000

/** How long one phase may take before it fails with a timeout: verifiers drawn, commit phase, reveal window (ms). */
export const DEFAULT_PHASE_TIMEOUT_MS = 30 * 60_000

/** How long a manifest or spec fetch may take (ms). */
export const DEFAULT_MANIFEST_FETCH_TIMEOUT_MS = 60_000

/** Largest manifest accepted (bytes). */
export const DEFAULT_MAX_MANIFEST_BYTES = 64 * 1024 * 1024

/** Manifest format version. */
export const MANIFEST_VERSION = 2

/** How long the finalizer waits for one MicroJob output from the network before it regenerates it (ms). */
export const DEFAULT_OUTPUT_FETCH_TIMEOUT_MS = 10_000

/** Outputs the finalizer fetches (or regenerates) at once. */
export const DEFAULT_OUTPUT_CONCURRENCY = 8

/** First pause of the finalizer before it retries a failed finalization (ms); doubled after each failure. */
export const DEFAULT_FINALIZE_RETRY_MS = 1_000

/** Longest pause between two finalization attempts (ms). */
export const DEFAULT_FINALIZE_MAX_RETRY_MS = 30_000

/** Bound of all finalization attempts of one job (ms): after it the finalizer gives up (logged, `error` event). */
export const DEFAULT_FINALIZE_TIMEOUT_MS = 10 * 60_000
/**
 * How long a job's join (`joinJob`, the node's consent to be named as a payee) is retried before it is given up: the
 * processor does no work on the job until a later try succeeds.
 */
export const DEFAULT_JOIN_TIMEOUT_MS = 10 * 60_000

/**
 * How long the processor waits for its join of a job to be mined before it turns to other jobs for a while (ms;
 * `JoinNotMinedError`): the join goes on meanwhile, and the job is taken up again later.
 */
export const DEFAULT_JOIN_WAIT_MS = 120_000

/**
 * Joins (job and round) a node remembers (the newest): a join forgotten and asked again is read on chain first
 * (`hasJoined`), so forgetting costs one read, and a node's memory of its joins does not grow with every job.
 */
export const MAX_REMEMBERED_JOINS = 10_000

/**
 * How long a finalizer waits, from the start of its work check, for the joins of signers not on chain in its view yet
 * (ms): a processor's join is mined before its first MicroJob of the job (`JobJoins`), so this covers only an RPC
 * that is a few blocks behind the processor's; a signer not joined by then is not paid (its MicroJobs are re-run). It
 * is what a signer that never joins costs each finalization of a job it worked on.
 */
export const DEFAULT_JOIN_GRACE_MS = 6_000

/** How often a join not mined yet is read again within that grace (ms). */
export const JOIN_POLL_MS = 1_000

/** How often the settlement watchers' progress (a block they are past) is saved for a restart (ms). */
export const CURSOR_SAVE_MS = 15_000

/** How long a verifier waits for the round's signed results of its sample to sync before it judges (ms). */
export const DEFAULT_RECORDS_WAIT_MS = 60_000
/** While evidence is missing, a verifier exchanges the round's doc with its peers at most this often (ms). */
export const EVIDENCE_PULL_INTERVAL_MS = 5_000
/** A verifier stops waiting for evidence this many blocks before the commit window closes, so its commit lands. */
export const COMMIT_MARGIN_BLOCKS = 5

/**
 * Wall-clock limit of one re-run of another node's MicroJob (a verifier's sample, a finalizer's check or stand-in), in
 * ms: 1.5 x the longest run a processor makes (`DEFAULT_MAX_RUN_TIMEOUT_MS`, 30 s). A re-run is often the first run of
 * the job's code on this engine, or on a slower machine: at the processors' own limit, a run that took a processor
 * 28 s could not be re-run, and a verifier that cannot re-run stays silent and is slashed. The commit window still
 * bounds a verifier's re-runs together.
 */
export const RERUN_TIMEOUT_MS = 45_000

/** While a job waits in the verification queue, its submitter calls `selectVerifiers` again this often (blocks). */
export const REDRAW_BLOCKS = 10

/**
 * A watcher draws a late job (nobody drew within the submitter's grace, `DRAW_GRACE_BLOCKS`) after a random extra
 * delay below this many blocks, so the peers watching the same job do not all send the same transaction.
 */
export const LATE_DRAW_SPREAD_BLOCKS = 8

/**
 * How long after a job completed a peer that did not finalize it waits for the finalizer's submission before the
 * first other peer of the job takes over (ms): longer than a healthy finalization (outputs, replication, one tx).
 */
export const DEFAULT_TAKEOVER_GRACE_MS = 120_000

/** Pause between the turns of the next takeover candidates when the one before did not submit (ms). */
export const DEFAULT_TAKEOVER_STEP_MS = 60_000

/** Mean pause between two probe scans of a peer (`probeNext`, docs/contracts.md, Probes), in ms. */
export const DEFAULT_PROBE_SCAN_MS = 60_000

/** Nodes one probe scan looks at. */
export const DEFAULT_PROBE_SCAN_NODES = 16

/**
 * Blocks a drawn verifier waits, once the sample is fixed, for the submitter's proof before it proves the sample
 * itself from the manifest (a submitter gone after submitting). Short: the commit window has to hold the fetch of
 * the manifest, the proof and the verifiers' commits.
 */
export const PROVE_GRACE_BLOCKS = 3

/** How often a peer re-reads the registry's count of active nodes, which decides the jobs it can be paid for (ms). */
export const DEFAULT_ACTIVE_NODES_REFRESH_MS = 10_000
/**
 * A count of active nodes too small for a job is read again at once when it is older than this (ms): nodes that
 * registered since (a devnet's, a network's first minutes) are seen within a choice or two, not a refresh later.
 */
export const ACTIVE_NODES_RECHECK_MS = 1_000

/** How long a stopping peer waits for its `pause` transaction (ms): past it, it stops anyway. */
export const STOP_PAUSE_TIMEOUT_MS = 10_000

/** How often a stopping peer looks whether its wallet's transactions in the pool were mined before it pauses (ms). */
export const OWN_PENDING_POLL_MS = 250

/** How often a peer reads the chain's time again, against which it reads the jobs' deadlines (ms). */
export const DEFAULT_CHAIN_CLOCK_REFRESH_MS = 60_000

/** How often a job's escrow status, which decides whether a peer works on it, is read again (ms). */
export const DEFAULT_JOB_STATUS_RECHECK_MS = 5_000
/**
 * A job whose announced round differs from its round on chain (`rejections`) at the last read is read again at most
 * this often (ms): a rejection moves the round on, and anybody can announce any round.
 */
export const ROUND_RECHECK_MS = 1_000
/** A job the escrow does not know is read again after twice the wait of the read before, up to this (ms). */
export const UNKNOWN_JOB_RECHECK_MAX_MS = 300_000
/**
 * A job the escrow still does not know this long after the first read found none is not read again (ms): jobs are
 * announced once funded, so only a lagging RPC node answers None for a real one, and not for ten minutes.
 */
export const UNKNOWN_JOB_GIVE_UP_MS = 600_000

/** How long the registry's owner of a PeerId, once read, is taken as it was (ms; `peerOwners`). */
export const OWNER_RECHECK_MS = 600_000
/** A PeerId nobody registered is read again after this (ms), then after twice the wait before each time (`peerOwners`). */
export const UNREGISTERED_RECHECK_MS = 10_000
/** The longest wait before a PeerId nobody registered is read again (ms). */
export const UNREGISTERED_RECHECK_MAX_MS = 3_600_000

/**
 * A probe answer whose send failed (an RPC hiccup, a nonce another sender of the wallet took) is sent again after
 * this pause (ms), doubled after each failure up to {@link PROBE_ANSWER_MAX_RETRY_MS}.
 */
export const PROBE_ANSWER_RETRY_MS = 1_000

/** Longest pause between two sends of one probe answer (ms). */
export const PROBE_ANSWER_MAX_RETRY_MS = 4_000

/**
 * Bound of all sends of one probe answer (ms): longer than the probe's window (20 blocks; 40 s at Amoy's 2 s) up to
 * 6 s blocks. A revert ends the retries at once: `ProbeExpired` once the window closed, `NoOpenProbe` once answered.
 */
export const PROBE_ANSWER_RETRY_TOTAL_MS = 120_000

/**
 * Pauses by the registry in a row (missed verification tasks or probes, no task scored above 0 between them) after
 * which a running node resumes itself (stay-in-draw.ts); after the next one it stays paused until its peer restarts.
 * Each miss scores 0; a full QoS window (10 tasks) averaging under 4 points kicks a node out for good, which takes
 * 7 zeros of a node that scored 10 points a task before (9 of one that scored 20).
 */
export const DEFAULT_RESUMES_IN_A_ROW = 2

/** How often a busy node tries again to set its commit timeout (commit-timeout.ts). */
export const COMMIT_TIMEOUT_RETRY_MS = 10_000

/** MacroJob docs a verifier pulls from a submitter at once (evidence.ts). */
export const EVIDENCE_PULL_CONCURRENCY = 4

/** How often a peer looks for jobs it knows whose deadline has passed, to retire those nothing can pay for (ms). */
export const DEFAULT_EXPIRY_CHECK_MS = 30_000

/**
 * How far back `jobmesh start` looks for the slashes that took the stake it tops up (blocks: ~2.8 h of 1 s blocks, ~5.6 h
 * on Amoy; 10 log requests of the client's range). A slash older than that is not named.
 */
export const SLASH_LOOKBACK_BLOCKS = 10_000
