/**
 * The parts of the WebAssembly JS API the executor's main thread uses. `@types/node` 20 does not declare the
 * `WebAssembly` global and the package does not load the DOM lib, so the few members are typed here.
 */

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
