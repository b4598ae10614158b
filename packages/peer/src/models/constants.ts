/** Defaults of the model holdings (docs/architecture.md, Models); each applied as `init.x ?? DEFAULT_X`. */

/** How long a peer without a job's model leaves the job to the model's holders after it first sees it (ms). */
export const DEFAULT_HOLDER_GRACE_MS = 3_000

/** How often the peer looks on chain for prompts to download a model (ms). */
export const DEFAULT_PROMPT_POLL_MS = 2_000

/** How long a model's on-chain holder count is trusted before it is read again (ms). */
export const DEFAULT_HOLDER_COUNT_TTL_MS = 10_000

/** Nodes a fallback peer prompts to download the model it had to fetch: one per fallback. */
export const PROMPTS_PER_FALLBACK = 1

/** Candidates a prompt tries (each refused one costs an estimate, not a transaction) before it gives up. */
export const MAX_PROMPT_TRIES = 3

/**
 * First wait before a model fetch (nobody reachable served it) or its on-chain record (RPC unreachable, transaction
 * failed) is tried again (ms); doubles each time.
 */
export const DEFAULT_RETRY_MS = 5_000

/** Longest wait between two tries of a model fetch or record (ms). */
export const DEFAULT_MAX_RETRY_MS = 60_000

/** Model jobs whose first sighting is remembered for the holder grace (the oldest are forgotten first). */
export const MAX_TRACKED_JOBS = 1_000

/** How a held model came, as people read it (the holdings' progress lines and `jobmesh status`). */
export const MODEL_SOURCE_LABELS = {
  start: 'kept with --model',
  fallback: 'fetched for a job',
  prompt: 'prefetched on a prompt'
} as const
