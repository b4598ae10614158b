// Types of wasm-builder.js (plain JS so that bench/ can import it without a TypeScript loader).

export declare const op: {
  readonly unreachable: 0x00
  readonly loop: 0x03
  readonly end: 0x0b
  readonly br: 0x0c
  readonly brIf: 0x0d
  readonly drop: 0x1a
  readonly call: 0x10
  readonly localGet: 0x20
  readonly i32Store: 0x36
  readonly memorySize: readonly [0x3f, 0x00]
  readonly memoryGrow: readonly [0x40, 0x00]
  readonly i32Const: 0x41
  readonly i32Ne: 0x47
  readonly i32Sub: 0x6b
  readonly void: 0x40
  /** `ref.null func` */
  readonly refNullFunc: readonly [0xd0, 0x70]
  /** `table.grow 0`: (init ref, n) -> old size, or -1 */
  readonly tableGrow: readonly [0xfc, 0x0f, 0x00]
}

export declare function uleb (value: number): number[]
/** A vector: its length (LEB128), then its items. */
export declare function vec (items: number[][]): number[]
/** A section: its id, its length (LEB128), then its content. */
export declare function section (id: number, content: number[]): number[]
/** A name: its UTF-8 length (LEB128), then its bytes. */
export declare function str (s: string): number[]
export declare function sleb (value: number): number[]
/** `i32.const value` */
export declare function i32 (value: number): number[]

export interface FuncDef {
  params: number
  results: 0 | 1
  body: number[]
  export?: string
}

export interface ImportDef {
  module: string
  name: string
  params: number
  results: 0 | 1
}

export interface ModuleDef {
  imports?: ImportDef[]
  memory?: { min: number, max?: number, export?: string }
  /** One funcref table. */
  table?: { min: number, max?: number }
  funcs: FuncDef[]
}

/** Encodes a module. Function indices: imports first, then `funcs` in order. */
export declare function buildModule (def: ModuleDef): Uint8Array
/** `alloc(len) -> 8`: the input goes at offset 8 of a memory that must be big enough. */
export declare const fixedAlloc: FuncDef
/** A module that follows the ABI and with `process` body `body` (params: ptr, len; result: i32). */
export declare function abiModule (processBody: number[], memory?: { min: number, max?: number }, imports?: ImportDef[],
  table?: { min: number, max?: number }): Uint8Array
/** echo: stores `len` at offset 4 (just before the input at 8) and returns 4, so the output is the input. */
export declare const echoModule: Uint8Array
