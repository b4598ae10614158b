import { raceSignal } from 'race-signal'
import { availableParallelism } from 'node:os'
import { logger } from '@libp2p/logger'
import {
  DEFAULT_MAX_CACHED_MODULES, DEFAULT_MAX_INPUT_BYTES, DEFAULT_MAX_MEMORY_BYTES, DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_TIMEOUT_MS, DEFAULT_WORKER_HEAP_MB, WASM_PAGE_BYTES
} from './constants.js'
import { AbortError, ExecutorStoppedError, InputTooLargeError, WasmTrapError } from './errors.js'
import { createModuleCache } from './module-cache.js'
import { createWorkerPool } from './worker-pool.js'
import { applyEngineFlags } from './wasm-api.js'
import type { PoolResult } from './worker-pool.js'

const log = logger('jobmesh:executor')

export interface WasmExecutorInit {
  /** Number of workers (default: the number of cores). */
  concurrency?: number
  /** Wall-clock limit of one run, in ms (default {@link DEFAULT_TIMEOUT_MS}). */
  timeoutMs?: number
  /** Limit of the module's linear memory, in bytes, rounded down to whole 64 KiB pages (default 256 MiB). */
  maxMemoryBytes?: number
  /** Limit of one run's output, in bytes (default 64 MiB). */
  maxOutputBytes?: number
  /** Limit of one run's input, in bytes (default 256 MiB). */
  maxInputBytes?: number
  /** JS heap limit of each worker, in MiB (default 64). */
  workerHeapMb?: number
  /** Compiled modules kept in the cache (default 32). */
  maxCachedModules?: number
}

export interface RunOptions {
  /** Aborts the run (or removes it from the queue); the promise rejects with `AbortError`. */
  signal?: AbortSignal
  /** Overrides the executor's wall-clock limit for this run. */
  timeoutMs?: number
  /** This run's output limit in bytes, when below the executor's `maxOutputBytes` (the lower one applies). */
  maxOutputBytes?: number
}

/** A run with its execution digest (docs/settlement.md, Verification). */
export interface Execution {
  output: Uint8Array
  /**
   * sha256 (0x hex) of a domain prefix and the module's whole linear memory after the run: a function of the code
   * and the input that, unlike the output, is never published, so only a node that ran the MicroJob knows it.
   */
  digest: string
}

export interface PrepareOptions {
  signal?: AbortSignal
}

export interface WasmExecutor {
  /**
   * Runs `code` (a WebAssembly module following the jobmesh ABI) on `input` and resolves with the output
   * bytes. Rejects with one of the executor's typed errors; a failed run never affects other runs.
   */
  run(code: Uint8Array, input: Uint8Array, options?: RunOptions): Promise<Uint8Array>
  /** {@link run} that also answers the execution digest (a verifier's re-run). */
  execute(code: Uint8Array, input: Uint8Array, options?: RunOptions): Promise<Execution>
  /**
   * Checks and compiles `code` without running it (the result is cached for later runs). Resolves with the
   * sha256 of the code (0x hex); rejects with `InvalidWasmError`, `ForbiddenImportError`, `MissingExportError`
   * or `MemoryLimitError`.
   */
  prepare(code: Uint8Array, options?: PrepareOptions): Promise<string>
  /** Fails queued and running runs with `ExecutorStoppedError` and terminates the workers. */
  stop(): Promise<void>
}

/** A run's abort: the executor's own error, not the signal's reason. */
const ABORTED = { translateError: (): Error => new AbortError('Run aborted') }

/**
 * Creates a WebAssembly executor: a pool of `worker_threads` workers that run job modules with a wall-clock
 * limit, a memory limit and an output size limit, and no imports but an `env.abort` stub.
 */
export function createWasmExecutor (init: WasmExecutorInit = {}): WasmExecutor {
  // before its first compile: one compiler tier for every run of job code in this process
  applyEngineFlags()
  const timeoutMs = init.timeoutMs ?? DEFAULT_TIMEOUT_MS
  const maxMemoryBytes = Math.floor((init.maxMemoryBytes ?? DEFAULT_MAX_MEMORY_BYTES) / WASM_PAGE_BYTES) * WASM_PAGE_BYTES
  const maxInputBytes = init.maxInputBytes ?? DEFAULT_MAX_INPUT_BYTES
  const concurrency = Math.max(1, init.concurrency ?? availableParallelism())
  const cache = createModuleCache({ maxEntries: init.maxCachedModules ?? DEFAULT_MAX_CACHED_MODULES, maxMemoryBytes })
  const pool = createWorkerPool({
    size: concurrency,
    maxMemoryBytes,
    maxOutputBytes: init.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
    workerHeapMb: init.workerHeapMb ?? DEFAULT_WORKER_HEAP_MB
  })
  let stopped = false
  log('executor with %d workers, timeout %d ms, memory %d bytes', concurrency, timeoutMs, maxMemoryBytes)

  const runInPool = async (code: Uint8Array, input: Uint8Array, options: RunOptions, digest: boolean): Promise<PoolResult> => {
    if (stopped) {
      throw new ExecutorStoppedError('Executor is stopped')
    }
    if (input.length > maxInputBytes) {
      throw new InputTooLargeError(`Input of ${input.length} bytes, limit ${maxInputBytes}`)
    }
    const prepared = await raceSignal(cache.get(code), options.signal, ABORTED)
    return pool.run({
      module: prepared.module, input, timeoutMs: options.timeoutMs ?? timeoutMs, signal: options.signal, digest, maxOutputBytes: options.maxOutputBytes
    })
  }

  return {
    async run (code, input, options = {}) {
      return (await runInPool(code, input, options, false)).output
    },
    async execute (code, input, options = {}) {
      const { output, digest } = await runInPool(code, input, options, true)
      if (digest == null) throw new WasmTrapError('the executor worker answered no execution digest')
      return { output, digest }
    },
    async prepare (code, options = {}) {
      if (stopped) {
        throw new ExecutorStoppedError('Executor is stopped')
      }
      const prepared = await raceSignal(cache.get(code), options.signal, ABORTED)
      return prepared.hash
    },
    async stop () {
      stopped = true
      cache.clear()
      await pool.stop()
    }
  }
}
