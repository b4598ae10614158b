/** Defaults of `@jobmesh/dapp-sdk`; every one is applied as `init.x ?? DEFAULT_X`. */

/** Verifiers per job when the submission names none: the protocol's default k (one constant, the peers' too). */
export { DEFAULT_VERIFIERS } from '@jobmesh/peer/protocol'

/** Job deadline when the submission names none: now + this many ms (24 h). */
export const DEFAULT_DEADLINE_MS = 24 * 60 * 60 * 1000

/**
 * Run-time hint when the submission names none: seconds one MicroJob runs (bounds a run, sizes the verifiers'
 * commit window; the task value uses the network's constants instead).
 */
export const DEFAULT_SECONDS_PER_MICRO_JOB = 10

/** How often `waitForRelease` polls the escrow (ms); about one Amoy block. */
export const DEFAULT_POLL_INTERVAL_MS = 2_000

/** How long `waitForRelease` waits before it throws ReleaseTimeoutError (ms). */
export const DEFAULT_RELEASE_TIMEOUT_MS = 30 * 60 * 1000

/**
 * How long `waitForRelease`'s status reads may fail in a row (RPC down, slow or odd) before the last error is thrown
 * (ms): a wait that outlives a node restart or a network blip goes on; the job on chain does not depend on it.
 */
export const DEFAULT_RPC_OUTAGE_MS = 2 * 60 * 1000

/**
 * How long a single JSON-RPC call may take (ms): the SDK's own default, twice the chain client's (15 s, in
 * `@jobmesh/contracts`), since a DApp usually talks to a public endpoint.
 */
export const DEFAULT_RPC_TIMEOUT_MS = 30_000

/** How long `submit` waits for the createJob transaction to be mined (ms). */
export const DEFAULT_TX_TIMEOUT_MS = 120_000

/** Confirmations `submit` and `refund` wait for. */
export const DEFAULT_CONFIRMATIONS = 1

/** How long opening a CRDT doc (and catching up with peers) may take (ms). */
export const DEFAULT_DOC_TIMEOUT_MS = 15_000

/**
 * While progress waits, the job's doc is exchanged with the connected peers and the job read on chain this often
 * (ms): results whose gossip was lost (a flooded topic, a dropped connection) arrive, and a released round ends it.
 */
export const PROGRESS_RESYNC_MS = 5_000

/**
 * A failed state whose failures include time limits (`ExecutionTimeoutError`: the machine and its load) while results
 * have landed ends progress only after this long without a new result (ms): the peers whose runs ran out of time gave
 * the job up, faster ones may still complete it. A check run of the failed state takes up to 3 x the 30 s run limit.
 */
export const DEFAULT_FAILED_QUIET_MS = 120_000

/** How long fetching one output or input by CID may take (ms). */
export const DEFAULT_FETCH_TIMEOUT_MS = 60_000

/** How long `createJobClient` waits for the first bootstrap connection (ms); the client starts anyway after it. */
export const DEFAULT_BOOTSTRAP_TIMEOUT_MS = 10_000

/** MicroJob outputs downloaded at the same time by `results`. */
export const DEFAULT_DOWNLOAD_CONCURRENCY = 8

/** Peers that must confirm they hold a job's inputs before `submit` returns (the replication protocol's default). */
export { DEFAULT_INPUT_REPLICAS } from '@jobmesh/peer/replication'
/**
 * How long `submit` with `requirePeer` waits, before it uploads, for a connected peer to identify as one that can hold
 * the inputs (speaks the replication protocol) (ms).
 */
export const DEFAULT_PEER_WAIT_MS = 10_000
/** How long `submit` waits for peers to hold the inputs (ms). */
export const DEFAULT_REPLICATION_TIMEOUT_MS = 60_000
/**
 * While too few peers hold the inputs, a detached `submit` asks again (the peers that did not confirm, and those that connected
 * meanwhile) after this pause (ms): a peer may not be connected yet, or may not see the new job in the escrow yet.
 */
export const DEFAULT_INPUT_RETRY_INTERVAL_MS = 1_000
/**
 * A detached `submit` waits for this many registered holders of the inputs that proved it (at least `inputReplicas`):
 * two copies, and a liar that passed its challenge by fetching the blocks from another holder is not the only one.
 */
export const DETACHED_INPUT_HOLDERS = 2
/**
 * ...but once `inputReplicas` holders confirmed, it waits at most this long (ms) for the others: a network of one
 * registered peer, or a second peer slow to fetch large inputs, does not keep the client for the whole replication time.
 */
export const DETACHED_MORE_HOLDERS_WAIT_MS = 30_000
