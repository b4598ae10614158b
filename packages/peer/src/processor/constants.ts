/** How long a peer waits for room announcements after asking for open MacroJobs (ms). */
export const DEFAULT_DISCOVERY_MS = 150
/** How long an idle processor waits before looking for work again (ms). */
export const DEFAULT_IDLE_MS = 500
/** MicroJobs a processor asks for per queue turn (the owner caps it to a fair share). */
export const DEFAULT_WANT = 8
/** A room announcement is trusted for this long (ms). */
export const DEFAULT_ANNOUNCEMENT_TTL_MS = 3_000
/** Completion counts as ours if our last result was written this recently (ms). */
export const DEFAULT_COMPLETION_WINDOW_MS = 1_000
/** Signing domain of job announcements. */
export const ANNOUNCEMENT_DOMAIN = 'jobmesh/job-announcement'
