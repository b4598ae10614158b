/** An operation stopped by its AbortSignal: the one class of every jobmesh package (`@jobmesh/contracts`). */
export { AbortError } from '@jobmesh/contracts'

/** The code is not a WebAssembly module, fails to compile, or uses an unsupported feature (shared or 64-bit memory). */
export class InvalidWasmError extends Error {
  static override readonly name = 'InvalidWasmError'
  override name = 'InvalidWasmError'
}

/** The module imports something other than `env.abort`. */
export class ForbiddenImportError extends Error {
  static override readonly name = 'ForbiddenImportError'
  override name = 'ForbiddenImportError'
}

/** The module does not export `memory`, `alloc` or `process` with the right kind. */
export class MissingExportError extends Error {
  static override readonly name = 'MissingExportError'
  override name = 'MissingExportError'
}

/** The module trapped (unreachable, out-of-bounds access, stack overflow, ...) or called `env.abort`. */
export class WasmTrapError extends Error {
  static override readonly name = 'WasmTrapError'
  override name = 'WasmTrapError'
}

/** The run did not finish within its wall-clock limit; its worker was terminated. */
export class ExecutionTimeoutError extends Error {
  static override readonly name = 'ExecutionTimeoutError'
  override name = 'ExecutionTimeoutError'
}

/** The module declares more than one table, or a table larger than `MAX_TABLE_ENTRIES`. */
export class TableLimitError extends Error {
  static override readonly name = 'TableLimitError'
  override name = 'TableLimitError'
}

/** The module declared or grew its memory beyond the limit, or its worker ran out of JS heap. */
export class MemoryLimitError extends Error {
  static override readonly name = 'MemoryLimitError'
  override name = 'MemoryLimitError'
}

/** The input is larger than the limit. */
export class InputTooLargeError extends Error {
  static override readonly name = 'InputTooLargeError'
  override name = 'InputTooLargeError'
}

/** The output is larger than the limit. */
export class OutputTooLargeError extends Error {
  static override readonly name = 'OutputTooLargeError'
  override name = 'OutputTooLargeError'
}

/** `alloc` or `process` returned a pointer that does not address the module's memory. */
export class AbiViolationError extends Error {
  static override readonly name = 'AbiViolationError'
  override name = 'AbiViolationError'
}

/** The executor was stopped before the run finished. */
export class ExecutorStoppedError extends Error {
  static override readonly name = 'ExecutorStoppedError'
  override name = 'ExecutorStoppedError'
}
