import { checkAbiSignatures } from './abi-signatures.js'
import { DEFAULT_MAX_MEMORY_BYTES, MAX_TABLE_ENTRIES, WASM_PAGE_BYTES } from './constants.js'
import { ForbiddenImportError, InvalidWasmError, MemoryLimitError, MissingExportError } from './errors.js'
import { capTable, checkHeader, readMemoryLimits } from './wasm-binary.js'
import { checkDeterministicFeatures } from './wasm-features.js'
import { wasm } from './wasm-api.js'
import type { WasmExternKind, WasmModule } from './wasm-api.js'

/** The only import a job module may have (a function). */
export const ALLOWED_IMPORTS: ReadonlySet<string> = new Set(['env.abort'])

/** The exports the ABI needs (docs/executor.md). */
export const REQUIRED_EXPORTS: ReadonlyArray<readonly [string, WasmExternKind]> = [
  ['memory', 'memory'],
  ['alloc', 'function'],
  ['process', 'function']
]

/** The exports of the job ABI, in plain words. */
const ABI = 'the job ABI: memory "memory", functions "alloc" and "process"'

/**
 * Checks a compiled module against the job ABI: it imports nothing but the function `env.abort` and exports
 * `memory`, `alloc` and `process`.
 *
 * @throws ForbiddenImportError, MissingExportError
 */
export function checkJobModule (module: WasmModule): void {
  for (const imp of wasm.Module.imports(module)) {
    const name = `${imp.module}.${imp.name}`
    if (!ALLOWED_IMPORTS.has(name) || imp.kind !== 'function') {
      throw new ForbiddenImportError(`Module imports ${imp.kind} ${name}; only function env.abort is allowed`)
    }
  }
  const exports = new Map(wasm.Module.exports(module).map(e => [e.name, e.kind]))
  for (const [name, kind] of REQUIRED_EXPORTS) {
    const actual = exports.get(name)
    if (actual === kind) continue
    const what = actual !== undefined
      ? `Module exports "${name}" as a ${actual}, not as a ${kind}`
      : kind === 'memory' ? `Module does not export its memory as "${name}"` : `Module does not export the ${kind} "${name}"`
    throw new MissingExportError(`${what} (${ABI})`)
  }
}

/**
 * Compiles job code, refuses features whose results differ between machines or
 * Node versions ({@link checkDeterministicFeatures}: relaxed SIMD, WasmGC) and checks the module against the job ABI
 * (its imports and exports, and the types of `alloc` and `process`: {@link checkAbiSignatures}).
 *
 * @throws InvalidWasmError (does not compile, or uses such a feature), ForbiddenImportError, MissingExportError
 */
export async function compileJobCode (code: Uint8Array): Promise<WasmModule> {
  let module: WasmModule
  try {
    module = await wasm.compile(code)
  } catch (err) {
    throw new InvalidWasmError(`Module does not compile: ${(err as Error).message}`)
  }
  checkDeterministicFeatures(code)
  checkJobModule(module)
  // the exports' types too: a process that returns nothing compiled, passed, and failed every run on every peer
  checkAbiSignatures(code, ABI)
  return module
}

/**
 * Refuses a module whose own memory starts larger than `maxMemoryBytes` (its declared minimum): no run of it could
 * begin. @throws MemoryLimitError
 */
export function checkDeclaredMemory (code: Uint8Array, maxMemoryBytes: number): void {
  const limitPages = Math.floor(maxMemoryBytes / WASM_PAGE_BYTES)
  const limits = readMemoryLimits(code)
  if (limits != null && limits.min > limitPages) {
    throw new MemoryLimitError(`Module declares ${limits.min} memory pages, limit ${limitPages}`)
  }
}

/**
 * The check a job's code must pass before anything is paid for it: it is WebAssembly that compiles and it fits
 * the ABI ({@link compileJobCode}) and the peers' default limits of table and starting memory. The SDK's `submit` and
 * `jobmesh-dapp submit` run it; the executor runs the same checks, with its own memory limit, before every first run
 * of a module.
 *
 * @throws InvalidWasmError (not WebAssembly, does not compile, or relaxed SIMD or WasmGC), TableLimitError,
 * MemoryLimitError, ForbiddenImportError, MissingExportError
 */
export async function validateJobCode (code: Uint8Array): Promise<void> {
  checkHeader(code)
  // the limits the executor applies (a module over them is refused there, after the job is paid)
  capTable(code, MAX_TABLE_ENTRIES)
  checkDeclaredMemory(code, DEFAULT_MAX_MEMORY_BYTES)
  await compileJobCode(code)
}
