/** The dashboard waits this long after a change before pushing the state (changes come in bursts), in ms. */
export const DEFAULT_PUSH_DEBOUNCE_MS = 250

/** The dashboard's state is pushed at least this often (chain values refresh on this beat), in ms. */
export const DEFAULT_PUSH_INTERVAL_MS = 2_000

/** Where `jobmesh start --http` listens when given only a port. */
export const DEFAULT_HTTP_HOST = '127.0.0.1'

/** Live dashboards (SSE streams) served at once; more are answered 503. */
export const MAX_SSE_CLIENTS = 32

/** Job stories (`/api/jobs/<jobId>/describe`, chain reads each) built at once; more are answered 503. */
export const MAX_DESCRIBES = 4
