/**
 * A tiny WebAssembly binary encoder for test modules (i32-only functions), so the bad modules the executor
 * must reject are built in the test itself without a wat toolchain. Plain JS (types in wasm-builder.d.ts) so that
 * bench/ can use it too (bench/hostile.bench.js builds its poison jobs with it).
 */

export const op = {
  unreachable: 0x00,
  loop: 0x03,
  end: 0x0b,
  br: 0x0c,
  brIf: 0x0d,
  drop: 0x1a,
  call: 0x10,
  localGet: 0x20,
  i32Store: 0x36,
  memorySize: [0x3f, 0x00],
  memoryGrow: [0x40, 0x00],
  i32Const: 0x41,
  i32Ne: 0x47,
  i32Sub: 0x6b,
  void: 0x40,
  refNullFunc: [0xd0, 0x70],
  tableGrow: [0xfc, 0x0f, 0x00]
}

export function uleb (value) {
  const out = []
  let v = value >>> 0
  do {
    let byte = v & 0x7f
    v >>>= 7
    if (v !== 0) byte |= 0x80
    out.push(byte)
  } while (v !== 0)
  return out
}

export function sleb (value) {
  const out = []
  let v = value | 0
  for (;;) {
    const byte = v & 0x7f
    v >>= 7
    if ((v === 0 && (byte & 0x40) === 0) || (v === -1 && (byte & 0x40) !== 0)) {
      out.push(byte)
      return out
    }
    out.push(byte | 0x80)
  }
}

/** `i32.const value` */
export function i32 (value) {
  return [op.i32Const, ...sleb(value)]
}

const I32 = 0x7f

export function str (s) {
  const bytes = [...new TextEncoder().encode(s)]
  return [...uleb(bytes.length), ...bytes]
}

export function vec (items) {
  return [...uleb(items.length), ...items.flat()]
}

export function section (id, content) {
  return [id, ...uleb(content.length), ...content]
}

/** Encodes a module. Function indices: imports first, then `funcs` in order. */
export function buildModule (def) {
  const imports = def.imports ?? []
  const sigs = [...imports, ...def.funcs].map(f => [0x60, ...vec(Array.from({ length: f.params }, () => [I32])),
    ...vec(f.results === 1 ? [[I32]] : [])])
  const out = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]
  out.push(...section(1, vec(sigs)))
  if (imports.length > 0) {
    out.push(...section(2, vec(imports.map((imp, i) => [...str(imp.module), ...str(imp.name), 0x00, ...uleb(i)]))))
  }
  out.push(...section(3, vec(def.funcs.map((_, i) => uleb(imports.length + i)))))
  if (def.table != null) {
    const { min, max } = def.table
    out.push(...section(4, vec([[0x70, ...(max == null ? [0x00, ...uleb(min)] : [0x01, ...uleb(min), ...uleb(max)])]])))
  }
  if (def.memory != null) {
    const { min, max } = def.memory
    out.push(...section(5, vec([max == null ? [0x00, ...uleb(min)] : [0x01, ...uleb(min), ...uleb(max)]])))
  }
  const exports = []
  if (def.memory?.export != null) {
    exports.push([...str(def.memory.export), 0x02, 0x00])
  }
  def.funcs.forEach((f, i) => {
    if (f.export != null) exports.push([...str(f.export), 0x00, ...uleb(imports.length + i)])
  })
  out.push(...section(7, vec(exports)))
  out.push(...section(10, vec(def.funcs.map(f => {
    const body = [0x00, ...f.body, op.end] // no locals
    return [...uleb(body.length), ...body]
  }))))
  return Uint8Array.from(out)
}

/** `alloc(len) -> 8`: the input goes at offset 8 of a memory that must be big enough. */
export const fixedAlloc = { params: 1, results: 1, export: 'alloc', body: i32(8) }

/** A module that follows the ABI and with `process` body `body` (params: ptr, len; result: i32). */
export function abiModule (processBody, memory = { min: 2 }, imports = [], table = undefined) {
  return buildModule({
    imports,
    table,
    memory: { ...memory, export: 'memory' },
    funcs: [fixedAlloc, { params: 2, results: 1, export: 'process', body: processBody }]
  })
}

/** echo: stores `len` at offset 4 (just before the input at 8) and returns 4, so the output is the input. */
export const echoModule = abiModule([...i32(4), op.localGet, 1, op.i32Store, 2, 0, ...i32(4)])
