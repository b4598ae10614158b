/**
 * The parts of the WebAssembly JS API the executor's main thread uses. `@types/node` 20 does not declare the
 * `WebAssembly` global and the package does not load the DOM lib, so the few members are typed here.
 */
import { setFlagsFromString } from 'node:v8'

/** A compiled WebAssembly module (opaque; cloneable to workers with `postMessage`). */
export interface WasmModule {
  readonly __brand?: 'WebAssembly.Module'
}

export type WasmExternKind = 'function' | 'table' | 'memory' | 'global' | 'tag'

export interface WasmImportDescriptor {
  module: string
  name: string
  kind: WasmExternKind
}

export interface WasmExportDescriptor {
  name: string
  kind: WasmExternKind
}

interface WasmApi {
  compile(bytes: Uint8Array): Promise<WasmModule>
  Module: {
    imports(module: WasmModule): WasmImportDescriptor[]
    exports(module: WasmModule): WasmExportDescriptor[]
  }
}

/** The global `WebAssembly` object. */
export const wasm: WasmApi = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly

/**
 * V8 flags an executor sets when it is created, before it compiles a job module: only the optimising compiler
 * (TurboFan), no baseline tier (Liftoff) that hot functions leave later. With both tiers a run's frames and speed
 * depended on how warm the process was (a recursion 35 % shallower and a run 2x slower cold), so a verifier's cold
 * re-run could trap or time out where the warm processor's run succeeded (docs/executor.md, One compiler tier). The
 * flags are process-wide, so only a process that runs job code sets them (`validateJobCode` alone, as a DApp's SDK
 * calls it, compiles without them: it runs nothing).
 */
export const WASM_ENGINE_FLAGS: readonly string[] = ['--no-liftoff']

let engineFlagsSet = false

/** Sets {@link WASM_ENGINE_FLAGS} (once per process). */
export function applyEngineFlags (): void {
  if (engineFlagsSet) return
  for (const flag of WASM_ENGINE_FLAGS) setFlagsFromString(flag)
  engineFlagsSet = true
}
