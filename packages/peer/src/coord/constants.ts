/** Lease length in ms (DESIGN 6). */
export const DEFAULT_LEASE_MS = 15_000
/** Holders renew their lease this often (ms). */
export const DEFAULT_RENEW_MS = 5_000
/**
 * The largest lease term (and so queue epoch) a lease record can hold: its `term` is a protobuf uint32, which writes
 * 2^32 as 0. A claim above a lease of this term claims this term again (leases.ts).
 */
export const MAX_LEASE_TERM = 0xffff_ffff
/** Clock skew allowance: a lease is open only when `now > expiresAt + skew` (ms). */
export const DEFAULT_SKEW_MS = 2_000
/**
 * How far ahead of this peer's clock a lease may end beyond one lease length and still be believed (ms): an honest
 * peer's clock may run seconds fast (no NTP, a drifting VM), which a lease it writes carries, and the skew allowance
 * (2 s) is for expiry only. A peer whose clock leads by more than lease - renew + skew (12 s) sees the others' live
 * leases as expired and takes their work anyway, so 10 s covers every lead the protocol otherwise tolerates. A lease
 * further ahead was not written by this network's take, claim or renew (one signed lease ten years ahead held a job
 * for good) and is open: a single lease holds an item at most a lease plus this plus the skew (27 s).
 */
export const DEFAULT_MAX_AHEAD_MS = 10_000
/** Settle window between writing a claim and re-reading it (ms). */
export const DEFAULT_SETTLE_MS = 250
/** The shortest settle of a claim whose confirm reached every connected peer (ms; leases.ts `settleWait`). */
export const MIN_SETTLE_MS = 50
/**
 * A failover's MacroJob claim confirms with every peer (and its room's subscribers beside) while gossipsub knows at
 * most this many, beyond with its room's subscribers only (room-claim.ts `claimPeers`). Up to 8 peers the exchanges
 * are cheap and a confirm that reached every peer shortens the settle by ~100-200 ms; at 16 peer processes on 2 cores
 * the 15 exchanges of each claim held it 1-2 s.
 */
export const CONFIRM_ALL_MAX_PEERS = 8

/**
 * The same bound for a room's first claim, made at a job's start while every peer opens the job: at 4 peer processes
 * the confirm with the 3 others settled claims 100-150 ms before the window; at 8 the one with the 7 others never did
 * (0.2-0.6 s), and its exchanges made the start slower (docs/coordination.md, Leases).
 */
export const FIRST_CLAIM_CONFIRM_ALL_MAX_PEERS = 4

/**
 * The settle window of a room's first claim while gossipsub knows at most CONFIRM_ALL_MAX_PEERS peers (ms; the
 * default window is DEFAULT_SETTLE_MS). Peers that know each other agree on a job's start order, which gives each of
 * the first claimants a MacroJob of its own, so the window only covers two peers that disagree on who is in the job;
 * and two claims that both settle cost the MicroJobs both ran before the CRDT converged, not a wrong result (the
 * lower PeerId keeps the epoch). 250 ms held every room of a proc:8 job that long before its first MicroJob
 * (docs/coordination.md, Twenty-second round).
 */
export const FIRST_CLAIM_SETTLE_MS = 100
/** The queue owner publishes a snapshot at least this often (ms). */
export const DEFAULT_HEARTBEAT_MS = 1_000
/** A room whose owner is silent this long fails over through the MacroJob lease (ms). */
export const DEFAULT_OWNER_TIMEOUT_MS = 3_000
/**
 * The longest one MicroJob run may take when a room is not told (`RoomInit.runLimitMs`; the processor passes the job's
 * run limit): with the lease grace, how long another peer's locks are believed without a result.
 */
export const DEFAULT_RUN_LIMIT_MS = 30_000
/** A member that found the owner silent decides again this much later, after the I/O its loop held back (ms). */
export const SUSPECT_CONFIRM_MS = 50
/** Largest coordination message accepted or sent (bytes). */
export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024
/**
 * Most MicroJobs an owner locks in one batch (for itself, the new owner of each turn). Peers ask for about a second
 * of work per turn (processor/turn-size.ts): up to 64 short MicroJobs, whose turn messages are then paid 64 times less
 * often per MicroJob. A snapshot names each lock holder once: 64 locks are ~0.5 KB of it.
 */
export const DEFAULT_MAX_BATCH = 64
/** Future snapshots (a gap in the term chain) kept until the gap fills. */
export const DEFAULT_MAX_BUFFERED_SNAPSHOTS = 16
/** Requesters a claimant remembers while its claim settles (room-owner.ts `earlyRequest`); more ask again. */
export const MAX_EARLY_REQUESTS = 64
/** Length of the signer slot in a `results` key. */
export const RESULT_SLOT_CHARS = 8

/** Failed MicroJob attempts (whole job, all peers) after which a job is given up (poison isolation). */
export const DEFAULT_MAX_FAILURES = 3
/** Distinct peers whose failures are needed before a job is given up (one faulty peer cannot fail a job). */
export const DEFAULT_FAILURE_PEERS = 2
/**
 * Queues (a MacroJob's MicroJobs) of at least this many items split their last round evenly over the room's members;
 * smaller ones halve down to single items at the tail (coord/queue.ts `fairBatch`). Measured: the even last round
 * took proc:8 from 213 to ~100 turns for 640 MicroJobs, while on jobs of 4 MicroJobs per MacroJob it handed whole
 * MacroJobs to the first peer that asked (docs/coordination.md, Fourth and fifth rounds).
 */
export const EVEN_SPLIT_MIN_ITEMS = 32

/** A peer gives up a job locally after this many of its own failed attempts, whatever the others say. */
export const DEFAULT_LOCAL_MAX_FAILURES = 3
/** Most characters of a failure record's `detail` (the error's message), written and read. */
export const MAX_FAILURE_DETAIL_CHARS = 160
/** Most distinct `name: detail` lines a failure summary lists. */
export const MAX_FAILURE_DETAILS = 5

/** A peer found not registered is asked about again after this long (ms). */
export const DEFAULT_ADMISSION_NEGATIVE_TTL_MS = 10_000
/** A peer found registered is asked about again after this long (ms): a node that withdrew is not admitted for good. */
export const DEFAULT_ADMISSION_POSITIVE_TTL_MS = 600_000
/**
 * The most announcements one update of the index by a node not registered may write (`admitUpdate`): a DApp writes
 * one per job, and a few when it submits several at once.
 */
export const DEFAULT_ADMISSION_MAX_ANNOUNCEMENTS = 8
/** The largest profile record a node that is not registered may write to the index (bytes). */
export const MAX_PROFILE_BYTES = 2048
/**
 * How many jobs not known yet a node that is not registered may have read on chain through its updates of the index
 * (`admitUpdate`, a token bucket per node): a DApp may submit dozens of jobs at once; past it the update is held back.
 */
export const DEFAULT_ADMISSION_JOB_READS = { ratePerSecond: 5, burst: 50 }
/** The same for all nodes that are not registered together (`admitUpdate`): a key per update costs an attacker nothing. */
export const DEFAULT_ADMISSION_ALL_JOB_READS = { ratePerSecond: 10, burst: 100 }
/**
 * How many PeerIds not asked about yet may be looked up in the registry (`isRegistered`), all together (a token
 * bucket): a gossiped message may carry any author, and a fresh Ed25519 key costs an attacker nothing. Past it, such
 * an author counts as not registered, not cached, so it is read once tokens come back. A node already read costs no
 * token. Enough for a few hundred peers met at once.
 */
export const DEFAULT_ADMISSION_REGISTRY_READS = { ratePerSecond: 50, burst: 500 }
/** Per-peer rate of coordination messages on each topic (token bucket): messages per second and burst. */
export const DEFAULT_COORD_RATE_PER_SECOND = 100
export const DEFAULT_COORD_BURST = 200

/** Topic of open-job requests, job announcements and MicroJob-complete notices. */
export const JOBS_TOPIC = '/jobmesh/1/jobs'

/** Y.Map names in a job doc. */
export const MACRO_MAP = 'macro'
export const MICRO_MAP = 'micro'
export const RESULTS_MAP = 'results'
export const FINAL_MAP = 'final'
export const FAILURES_MAP = 'failures'
/** Job doc map of finished MacroJobs' summaries (key = MacroJob index). */
export const SUMMARY_MAP = 'summary'
/** Index doc and its job map. */
export const INDEX_DOC = 'jobmesh/index'
export const INDEX_JOBS_MAP = 'jobs'

/** Signing domain of job announcements (`jobmesh/index` doc, `jobs` map). */
export const ANNOUNCEMENT_DOMAIN = 'jobmesh/job-announcement'
/** Map of signed peer profiles in the `jobmesh/index` doc (key = PeerId). */
export const PEERS_MAP = 'peers'
/** Signing domain of peer profiles (each key signs under `<domain>/<peerId>`). */
export const PROFILE_DOMAIN = 'jobmesh/peer-profile'
/** Signing domain prefix of finalization records: `jobmesh/final/<jobId>/<peerId>`. */
export const FINAL_DOMAIN = 'jobmesh/final'

/** Most "yes" answers (registered nodes, known jobs) an admission cache keeps; past it the oldest goes. */
export const MAX_CACHED_YES_ANSWERS = 100_000

/** Most "no" answers (unknown PeerIds, unknown jobs) an admission cache keeps; past it the oldest goes. */
export const MAX_CACHED_NO_ANSWERS = 10_000
