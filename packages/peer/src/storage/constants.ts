/** Defaults of the content store; applied as `init.x ?? DEFAULT_X`. */

/** Largest content `fetch` returns unless told otherwise (bytes): the size of the WebAssembly executor's input limit. */
export const DEFAULT_MAX_FETCH_BYTES = 256 * 1024 * 1024

/** How long one `fetch` may take before it fails with `ContentTimeoutError` (ms). */
export const DEFAULT_FETCH_TIMEOUT_MS = 60_000

/**
 * Outputs up to this size are stored as one raw IPFS block (CIDv1, raw codec, sha256), so their CID follows from
 * the output hash alone; larger outputs are stored as UnixFS files. Bitswap moves blocks of up to 2 MiB.
 */
export const DEFAULT_RAW_BLOCK_MAX_BYTES = 1024 * 1024

/** URI schemes the content store reads. */
export const SUPPORTED_SCHEMES = ['ipfs:', 'https:', 'http:', 'file:'] as const

/**
 * A bounded pin's timeout grows by a second per this many bytes fetched (bytes per second), and a pin that gets
 * nothing for the fetch timeout ends: the timeout bounds a pin that stalls, not one of a large input that keeps
 * arriving (a 600 MB input took more than 60 s on a loaded devnet: each try was cut, and the job waited for the next).
 */
export const DEFAULT_PIN_BYTES_PER_SECOND = 1024 * 1024

/** Blocks a bounded pin's walk (`walkWithin`) fetches at once. */
export const PIN_WALK_CONCURRENCY = 8

/** Largest block this node reads whole to hash it or find its links (bitswap's own bound on a block: 4 MiB). */
export const MAX_BLOCK_BYTES = 4 * 1024 * 1024
