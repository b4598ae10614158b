/**
 * @packageDocumentation
 *
 * The WebAssembly executor: runs a job's module on a MicroJob's input in a `worker_threads` worker, with a
 * wall-clock limit, a memory limit and an output size limit, and no imports but an `env.abort` stub; and the one
 * MicroJob runner over it (`wasmMicroJobExecutor`: fetch the code and the MicroJob's block range, run it) that
 * processors, verifiers and a finalizer's regeneration all use, with the `MicroJobTask`/`MicroJobExecutor` types.
 *
 * The ABI (see docs/executor.md): the module exports `memory`, `alloc(len: i32) -> ptr` and
 * `process(ptr: i32, len: i32) -> ptr`; the returned pointer addresses a little-endian u32 length followed by
 * that many output bytes. The output hash is the sha256 of the output bytes.
 *
 * @example
 * ```ts
 * const executor = createWasmExecutor({ timeoutMs: 10_000 })
 * const output = await executor.run(code, input, { signal })
 * const hash = outputHash(output)
 * await executor.stop()
 * ```
 */
export { createWasmExecutor } from './executor.js'
export type { WasmExecutor, WasmExecutorInit, RunOptions, PrepareOptions, Execution } from './executor.js'
export { outputHash } from './hash.js'
export { validateJobCode, checkJobModule } from './job-code.js'
export { wasmMicroJobExecutor, microJobRange, microJobInput } from './micro-job-executor.js'
export type { ContentReader, WasmMicroJobExecutorComponents, WasmMicroJobExecutorInit } from './micro-job-executor.js'
export type { MicroJobExecutor, MicroJobExecution, MicroJobRunOptions, MicroJobTask } from './micro-job-task.js'
export { isModuleFailure, isModuleFailureName } from './module-failure.js'
export {
  InvalidWasmError, ForbiddenImportError, MissingExportError, WasmTrapError, ExecutionTimeoutError,
  MemoryLimitError, TableLimitError, InputTooLargeError, OutputTooLargeError, AbiViolationError, AbortError,
  ExecutorStoppedError
} from './errors.js'
export {
  DEFAULT_TIMEOUT_MS, DEFAULT_MAX_MEMORY_BYTES, DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_MAX_INPUT_BYTES,
  DEFAULT_WORKER_HEAP_MB, DEFAULT_MAX_CACHED_MODULES, DEFAULT_MAX_CODE_BYTES, DEFAULT_CODE_CACHE_ENTRIES, DEFAULT_CODE_CACHE_BYTES,
  MAX_TABLE_ENTRIES
} from './constants.js'
