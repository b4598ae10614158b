/** Recent events a peer keeps for the dashboard and `/api/events`. */
export const DEFAULT_RECENT_EVENTS = 200

/** How long a diagnostic read (doc open, chain call) may take before `describe` gives up on it, in ms. */
export const DEFAULT_DESCRIBE_TIMEOUT_MS = 10_000

/** The dashboard's chain reads (balances, stakes, verification phases) are refreshed at most this often, in ms. */
export const DEFAULT_CHAIN_REFRESH_MS = 2_000

/**
 * At most this many of the dashboard's chain reads run at once (a job's status when it is learnt, each job's and
 * each peer's refresh): a peer restarted after many jobs does not send the RPC endpoint one request per job at once.
 */
export const DEFAULT_CHAIN_READ_CONCURRENCY = 8

/**
 * A job announced in the index that the escrow does not hold (never funded, or funded a block after the RPC endpoint's
 * view) gets no card: it is looked at again after this long (ms), then twice as long each time up to
 * {@link UNFUNDED_RECHECK_MAX_MS}, and forgotten after {@link UNFUNDED_GIVE_UP_MS} (until its announcement changes).
 */
export const DEFAULT_UNFUNDED_RECHECK_MS = 5_000
export const UNFUNDED_RECHECK_MAX_MS = 300_000
export const UNFUNDED_GIVE_UP_MS = 1_800_000

/**
 * The incentive share recorded on chain is shown with the current one beside it (recorded at the next poke or claim)
 * once they differ by this much: shares print with two decimals.
 */
export const SHARE_SHOWN_CHANGE = 0.005
