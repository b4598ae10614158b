import {
  AbiViolationError, ForbiddenImportError, InputTooLargeError, InvalidWasmError, MemoryLimitError, MissingExportError,
  OutputTooLargeError, TableLimitError, WasmTrapError
} from './errors.js'

/** Errors that depend on the module and its input alone: any peer running the same MicroJob gets the same one. */
const MODULE_FAILURES: ReadonlySet<string> = new Set([
  InvalidWasmError.name, ForbiddenImportError.name, MissingExportError.name, WasmTrapError.name, MemoryLimitError.name,
  InputTooLargeError.name, OutputTooLargeError.name, AbiViolationError.name, TableLimitError.name
])

/**
 * Whether a run failed because of the module itself (a trap, invalid code, a memory, input or output limit), as
 * every peer would see it; not a time limit (the machine and its load) nor a content fetch (the network).
 */
export function isModuleFailure (err: Error): boolean {
  return isModuleFailureName(err.name)
}

/** {@link isModuleFailure} by the error's name, as failure records carry it. */
export function isModuleFailureName (name: string): boolean {
  return MODULE_FAILURES.has(name)
}
