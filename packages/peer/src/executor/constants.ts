import { MAX_MICROJOB_INPUT_BYTES, MAX_MICROJOB_OUTPUT_BYTES } from '../protocol/index.js'

/** Wall-clock limit of one run, in ms, counted from the moment a worker starts it. */
export const DEFAULT_TIMEOUT_MS = 30_000

/** Limit of a module's linear memory, in bytes (256 MiB = 4096 pages). */
export const DEFAULT_MAX_MEMORY_BYTES = 256 * 1024 * 1024

/** Limit of one run's output, in bytes: the largest MicroJob output a spec may allow (64 MiB). */
export const DEFAULT_MAX_OUTPUT_BYTES = MAX_MICROJOB_OUTPUT_BYTES

/** Limit of one run's input, in bytes: the largest MicroJob input a spec may ask for (256 MiB). */
export const DEFAULT_MAX_INPUT_BYTES = MAX_MICROJOB_INPUT_BYTES

/** V8 old-generation heap limit of each worker, in MiB (the JS heap only; wasm memory is limited separately). */
export const DEFAULT_WORKER_HEAP_MB = 64

/** Compiled modules kept in the cache (least recently used are dropped first). */
export const DEFAULT_MAX_CACHED_MODULES = 32

/** Size of one WebAssembly memory page, in bytes. */
export const WASM_PAGE_BYTES = 65_536

/**
 * The most entries a job module's table may have, declared or grown. V8 builds a table in the worker's JS heap, and
 * a table of a few million entries ran out of it in a way that aborts the whole peer process, not the worker
 * (measured on Node 20: 6 million entries, or `table.grow` of 10 million). Compilers emit one table of the functions
 * called indirectly: thousands of entries, not tens of thousands.
 */
export const MAX_TABLE_ENTRIES = 65_536

/** The largest number of pages a 32-bit WebAssembly memory can have. */
export const WASM_MAX_PAGES = 65_536

/** Largest job code the MicroJob executor fetches (bytes). */
export const DEFAULT_MAX_CODE_BYTES = 64 * 1024 * 1024

/** Job code modules the MicroJob executor keeps in memory, by URI. */
export const DEFAULT_CODE_CACHE_ENTRIES = 16

/**
 * Bytes of code and models the MicroJob executor keeps in memory, all together (the least recently used go first):
 * by count alone 16 models of 256 MiB, each named by a cheap job, would have held 4 GiB.
 */
export const DEFAULT_CODE_CACHE_BYTES = 512 * 1024 * 1024
