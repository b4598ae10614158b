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
