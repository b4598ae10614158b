import { InvalidWasmError } from './errors.js'
import { FUNC_TYPE, SECTION_CODE, SECTION_DATA, SECTION_ELEMENT, SECTION_GLOBAL, SECTION_TABLE, SECTION_TYPE, sections } from './wasm-binary.js'
import { constExpression, expression } from './wasm-instructions.js'
import { Reader, hex, refType, valueType, valueTypes } from './wasm-reader.js'

/** Type section entries of WasmGC. */
const GC_TYPE_FORMS = new Map([[0x4e, 'rec'], [0x50, 'sub'], [0x4f, 'sub final'], [0x5f, 'struct'], [0x5e, 'array']])

/** One table: funcref or externref, 32-bit limits, no initial expression. */
function table (r: Reader): void {
  if (r.peek() === 0x40) throw new InvalidWasmError(`Module declares a table with an initial expression (byte ${r.pos}), which Node 20 does not compile`)
  refType(r)
  const at = r.pos
  const flags = r.byte()
  if (flags > 0x01) throw new InvalidWasmError(`Only a 32-bit, unshared table is supported (flags ${hex(flags)} at byte ${at})`)
  r.u32()
  if (flags === 0x01) r.u32()
}

/** One element segment, forms 0-7: bit 0 passive or declarative, bit 1 a table index (active) or declarative, bit 2 expressions. */
function elementSegment (r: Reader): void {
  const at = r.pos
  const flags = r.u32()
  if (flags > 7) throw new InvalidWasmError(`Unknown element segment form ${flags} at byte ${at}`)
  const active = (flags & 0x01) === 0
  if (active && (flags & 0x02) !== 0) r.u32() // table index
  if (active) constExpression(r) // offset
  const expressions = (flags & 0x04) !== 0
  if (flags !== 0 && flags !== 4) {
    if (expressions) refType(r)
    else if (r.byte() !== 0x00) throw new InvalidWasmError(`Unknown element kind at byte ${r.pos - 1}`)
  }
  const n = r.u32()
  for (let e = 0; e < n; e++) {
    if (expressions) constExpression(r)
    else r.u32() // function index
  }
}

/** One data segment: 0 active in memory 0, 1 passive, 2 active with a memory index; each offset a constant expression. */
function dataSegment (r: Reader): void {
  const at = r.pos
  const flags = r.u32()
  if (flags > 2) throw new InvalidWasmError(`Unknown data segment form ${flags} at byte ${at}`)
  if (flags === 2) r.u32() // memory index
  if (flags !== 1) constExpression(r)
  r.skip(r.u32())
}

/** One type: a plain function type (WasmGC's forms refused). */
function type (r: Reader): void {
  const at = r.pos
  const form = r.byte()
  const gc = GC_TYPE_FORMS.get(form)
  if (gc != null) throw new InvalidWasmError(`Module declares a WasmGC type (${hex(form)}, ${gc}) at byte ${at}, which jobmesh does not run`)
  if (form !== FUNC_TYPE) throw new InvalidWasmError(`Unknown type form ${hex(form)} at byte ${at}`)
  valueTypes(r) // params
  valueTypes(r) // results
}

function global (r: Reader): void {
  valueType(r)
  const at = r.pos
  const mutability = r.byte()
  if (mutability > 0x01) throw new InvalidWasmError(`Unknown global mutability ${hex(mutability)} at byte ${at}`)
  constExpression(r)
}

/** One function body: its size, its locals, its instructions up to the `end` its size ends at. */
function functionBody (r: Reader, i: number): void {
  const body = r.sub(r.u32())
  const groups = body.u32()
  for (let g = 0; g < groups; g++) {
    body.u32() // how many locals of the type
    valueType(body)
  }
  expression(body)
  body.expectEnd(`function body ${i}`)
}

/** The sections read, each a vector of entries, with the reader of one entry. */
const SECTION_ENTRIES = new Map<number, { name: string, entry: (r: Reader, i: number) => void }>([
  [SECTION_TYPE, { name: 'type', entry: type }], [SECTION_TABLE, { name: 'table', entry: table }],
  [SECTION_GLOBAL, { name: 'global', entry: global }], [SECTION_ELEMENT, { name: 'element', entry: elementSegment }],
  [SECTION_CODE, { name: 'code', entry: functionBody }], [SECTION_DATA, { name: 'data', entry: dataSegment }]
])

/**
 * Refuses a module that uses a feature whose results are not the same on every machine, or that jobmesh does not
 * run: relaxed SIMD (its results differ between CPUs: with or without FMA, x86 or ARM), WasmGC and typed
 * references (types, value types and instructions). Node 22+ compiles such modules (V8 enables them by default, with
 * no flag to turn them off) while Node 20 refuses them, so a verifier on another Node could not re-run a job.
 *
 * Walks the type, table, global, element, code and data sections: every type must be a plain function type, every
 * value type (params, results, globals, locals, `select t`, block types) one of i32, i64, f32, f64, v128, funcref and
 * externref, every table's and element segment's reference type funcref or externref, every constant expression made
 * of constants, `global.get`, `ref.null` and `ref.func` (no extended-const arithmetic), and every instruction one of an
 * allow-list (MVP, sign extension, saturating truncation, bulk memory, reference types, multi-value, tail calls,
 * exceptions without exnref, SIMD128 without relaxed SIMD, atomics): what Node 20, the oldest Node jobmesh runs on,
 * compiles. The other sections (imports, functions, memory, exports, start, tags) are skipped.
 * Meant for a module that V8 already compiled, but it reads any bytes without hanging: anything malformed, truncated
 * or unknown is refused.
 *
 * @throws InvalidWasmError
 */
export function checkDeterministicFeatures (bytes: Uint8Array): void {
  for (const section of sections(bytes)) {
    const read = SECTION_ENTRIES.get(section.id)
    if (read == null) continue
    const r = new Reader(bytes, section.contentStart, section.end)
    const count = r.u32()
    for (let i = 0; i < count; i++) read.entry(r, i)
    r.expectEnd(`${read.name} section`)
  }
}
