/** Defaults of the content store and the WASM MicroJob executor adapter; applied as `init.x ?? DEFAULT_X`. */

/** Largest content `fetch` returns unless told otherwise (bytes): the executor's input limit. */
export const DEFAULT_MAX_FETCH_BYTES = 256 * 1024 * 1024

/** How long one `fetch` may take before it fails with `ContentTimeoutError` (ms). */
export const DEFAULT_FETCH_TIMEOUT_MS = 60_000

/** Largest job code the adapter fetches (bytes). */
export const DEFAULT_MAX_CODE_BYTES = 64 * 1024 * 1024

/** Job code modules the adapter keeps in memory, by URI. */
export const DEFAULT_CODE_CACHE_ENTRIES = 16

/**
 * Outputs up to this size are stored as one raw IPFS block (CIDv1, raw codec, sha256), so their CID follows from
 * the output hash alone; larger outputs are stored as UnixFS files. Bitswap moves blocks of up to 2 MiB.
 */
export const DEFAULT_RAW_BLOCK_MAX_BYTES = 1024 * 1024

/** URI schemes the content store reads. */
export const SUPPORTED_SCHEMES = ['ipfs:', 'https:', 'http:', 'file:'] as const
