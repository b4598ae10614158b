import { InvalidWasmError } from './errors.js'
import { readU32, sections } from './wasm-binary.js'

const SECTION_TYPE = 1
const SECTION_TABLE = 4
const SECTION_GLOBAL = 6
const SECTION_ELEMENT = 9
const SECTION_CODE = 10
const SECTION_DATA = 11

const FUNC_TYPE = 0x60
const EMPTY_BLOCK = 0x40
const END = 0x0b
const DELEGATE = 0x18

/** i32, i64, f32, f64, v128, funcref, externref: every value type whose operations give the same result everywhere. */
const VALUE_TYPES = new Set([0x7f, 0x7e, 0x7d, 0x7c, 0x7b, 0x70, 0x6f])

/** Value types of WasmGC and typed references (and exnref), by their one-byte code, for the message. */
const REFUSED_VALUE_TYPES = new Map([
  [0x63, 'ref null'], [0x64, 'ref'], [0x6e, 'anyref'], [0x6d, 'eqref'], [0x6c, 'i31ref'], [0x6b, 'structref'],
  [0x6a, 'arrayref'], [0x71, 'nullref'], [0x72, 'nullexternref'], [0x73, 'nullfuncref'], [0x69, 'exnref'],
  [0x74, 'nullexnref']
])

/** Type section entries of WasmGC. */
const GC_TYPE_FORMS = new Map([[0x4e, 'rec'], [0x50, 'sub'], [0x4f, 'sub final'], [0x5f, 'struct'], [0x5e, 'array']])

/** A cursor over `bytes[pos, end)`: every read past `end` is an InvalidWasmError. */
class Reader {
  pos: number
  private readonly bytes: Uint8Array

  constructor (bytes: Uint8Array, pos: number, end: number) {
    this.bytes = bytes.subarray(0, end)
    this.pos = pos
  }

  get end (): number {
    return this.bytes.length
  }

  byte (): number {
    if (this.pos >= this.bytes.length) throw new InvalidWasmError(`Truncated module at byte ${this.pos}`)
    return this.bytes[this.pos++]
  }

  peek (): number {
    if (this.pos >= this.bytes.length) throw new InvalidWasmError(`Truncated module at byte ${this.pos}`)
    return this.bytes[this.pos]
  }

  u32 (): number {
    const { value, next } = readU32(this.bytes, this.pos)
    this.pos = next
    return value
  }

  /** Skips a signed LEB128 number of at most `maxBytes` bytes (5 for s32 and s33, 10 for s64). */
  signed (maxBytes: number): void {
    for (let i = 0; i < maxBytes; i++) {
      if ((this.byte() & 0x80) === 0) return
    }
    throw new InvalidWasmError('Signed LEB128 number too long')
  }

  skip (count: number): void {
    if (this.pos + count > this.bytes.length) throw new InvalidWasmError(`Truncated module at byte ${this.pos}`)
    this.pos += count
  }

  /** A reader over the next `length` bytes, which this one then skips. */
  sub (length: number): Reader {
    const end = this.pos + length
    if (end > this.bytes.length) throw new InvalidWasmError(`Truncated module: ${length} bytes at byte ${this.pos} run past their section`)
    const out = new Reader(this.bytes, this.pos, end)
    this.pos = end
    return out
  }

  /** Refuses bytes left over after the last entry of a section or a function body. */
  expectEnd (what: string): void {
    if (this.pos !== this.bytes.length) throw new InvalidWasmError(`Malformed ${what}: it ends at byte ${this.pos}, its size says ${this.bytes.length}`)
  }
}

function hex (value: number): string {
  return `0x${value.toString(16).padStart(2, '0')}`
}

function refuse (opcode: string, at: number, why?: string): InvalidWasmError {
  return new InvalidWasmError(`Module uses instruction ${opcode} (byte ${at}), which jobmesh does not run${why == null ? '' : ` (${why})`}`)
}

function valueType (r: Reader): void {
  const at = r.pos
  const type = r.byte()
  if (VALUE_TYPES.has(type)) return
  const name = REFUSED_VALUE_TYPES.get(type)
  throw new InvalidWasmError(`Module uses value type ${hex(type)}${name == null ? '' : ` (${name})`} (byte ${at}), ` +
    'a WasmGC/typed-reference type, which jobmesh does not run')
}

function valueTypes (r: Reader): void {
  const count = r.u32()
  for (let i = 0; i < count; i++) valueType(r)
}

/** `0x40`, a value type, or a type index as a (non-negative) signed 33-bit LEB128 number. */
function blockType (r: Reader): void {
  const first = r.peek()
  if (first === EMPTY_BLOCK) {
    r.pos++
  } else if ((first & 0xc0) === 0x40) {
    // one byte of a negative number: a value type
    valueType(r)
  } else {
    r.signed(5)
  }
}

/** align, a memory index when bit 6 of align says so (multi-memory), offset. */
function memarg (r: Reader): void {
  const align = r.u32()
  if ((align & 0x40) !== 0) r.u32()
  r.u32()
}

function u32s (count: number): (r: Reader) => void {
  return r => {
    for (let i = 0; i < count; i++) r.u32()
  }
}

function brTable (r: Reader): void {
  const count = r.u32()
  for (let i = 0; i < count; i++) r.u32()
  r.u32()
}

function refNull (r: Reader): void {
  const at = r.pos
  const heapType = r.byte()
  if (heapType !== 0x70 && heapType !== 0x6f) throw refuse(`0xd0 ${hex(heapType)}`, at - 1, 'ref.null of a WasmGC/typed-reference heap type')
}

type Immediates = (r: Reader) => void

const none: Immediates = () => {}

/** One-byte opcodes jobmesh runs, with their immediates (the prefixes 0xfc, 0xfd and 0xfe are read apart). */
const OPCODES = new Map<number, Immediates>([
  [0x00, none], [0x01, none], [0x02, blockType], [0x03, blockType], [0x04, blockType], [0x05, none],
  [0x06, blockType], [0x07, u32s(1)], [0x08, u32s(1)], [0x09, u32s(1)],
  [0x0c, u32s(1)], [0x0d, u32s(1)], [0x0e, brTable], [0x0f, none], [0x10, u32s(1)], [0x11, u32s(2)],
  [0x12, u32s(1)], [0x13, u32s(2)], [DELEGATE, u32s(1)], [0x19, none], [0x1a, none], [0x1b, none], [0x1c, valueTypes],
  [0x20, u32s(1)], [0x21, u32s(1)], [0x22, u32s(1)], [0x23, u32s(1)], [0x24, u32s(1)],
  [0x25, u32s(1)], [0x26, u32s(1)], [0x3f, u32s(1)], [0x40, u32s(1)],
  [0x41, r => { r.signed(5) }], [0x42, r => { r.signed(10) }], [0x43, r => { r.skip(4) }], [0x44, r => { r.skip(8) }],
  [0xd0, refNull], [0xd1, none], [0xd2, u32s(1)]
])
for (let op = 0x28; op <= 0x3e; op++) OPCODES.set(op, memarg)
for (let op = 0x45; op <= 0xc4; op++) OPCODES.set(op, none)

/** block, loop, if, try: each opens a block that an `end` (or, for try, a `delegate`) closes. */
const BLOCK_OPENERS = new Set([0x02, 0x03, 0x04, 0x06])

/** Typed function references: call_ref, return_call_ref, ref.as_non_null, br_on_null, ref.eq, br_on_non_null. */
const TYPED_REFERENCE_OPCODES = new Set([0x14, 0x15, 0xd3, 0xd4, 0xd5, 0xd6])

/** try_table and throw_ref (exception handling with exnref): Node 20 does not compile them, Node 24 does. */
const EXNREF_OPCODES = new Set([0x1f, 0x0a])

/** 0xfc sub-opcodes: saturating truncation (0-7) and bulk memory and table operations (8-17), by their u32 count. */
const FC_IMMEDIATES = [0, 0, 0, 0, 0, 0, 0, 0, 2, 1, 2, 1, 2, 1, 2, 1, 1, 1]

function prefixFC (r: Reader, at: number): void {
  const sub = r.u32()
  if (sub >= FC_IMMEDIATES.length) throw refuse(`0xfc ${hex(sub)}`, at)
  u32s(FC_IMMEDIATES[sub])(r)
}

/** The SIMD sub-opcodes below 0x100 that no instruction has (reserved). */
const SIMD_GAPS = new Set([0x9a, 0xa2, 0xa5, 0xa6, 0xaf, 0xb0, 0xb2, 0xb3, 0xb4, 0xbb, 0xc2, 0xc5, 0xc6, 0xcf, 0xd0,
  0xd2, 0xd3, 0xd4, 0xe2, 0xee])
const RELAXED_SIMD_FIRST = 0x100
const RELAXED_SIMD_LAST = 0x113

function prefixFD (r: Reader, at: number): void {
  const sub = r.u32()
  if (sub >= RELAXED_SIMD_FIRST && sub <= RELAXED_SIMD_LAST) {
    throw refuse(`0xfd ${hex(sub)}`, at, 'relaxed SIMD: its results differ between CPUs')
  }
  if (sub > 0xff || SIMD_GAPS.has(sub)) throw refuse(`0xfd ${hex(sub)}`, at)
  if (sub <= 0x0b || sub === 0x5c || sub === 0x5d) {
    memarg(r) // loads, store, load32_zero, load64_zero
  } else if (sub === 0x0c || sub === 0x0d) {
    r.skip(16) // v128.const, i8x16.shuffle
  } else if (sub >= 0x15 && sub <= 0x22) {
    r.skip(1) // extract and replace lane
  } else if (sub >= 0x54 && sub <= 0x5b) {
    memarg(r) // load and store lane
    r.skip(1)
  }
}

function prefixFE (r: Reader, at: number): void {
  const sub = r.u32()
  if (sub <= 0x02 || (sub >= 0x10 && sub <= 0x4e)) {
    memarg(r)
  } else if (sub === 0x03) {
    if (r.byte() !== 0x00) throw new InvalidWasmError(`Malformed atomic.fence at byte ${at}`)
  } else {
    throw refuse(`0xfe ${hex(sub)}`, at)
  }
}

/** Reads the immediates of the instruction `op` at `at`, or refuses it. */
function instruction (r: Reader, op: number, at: number): void {
  const immediates = OPCODES.get(op)
  if (immediates != null) {
    immediates(r)
  } else if (op === 0xfc) {
    prefixFC(r, at)
  } else if (op === 0xfd) {
    prefixFD(r, at)
  } else if (op === 0xfe) {
    prefixFE(r, at)
  } else if (op === 0xfb) {
    throw refuse(`0xfb ${hex(r.u32())}`, at, 'WasmGC')
  } else if (EXNREF_OPCODES.has(op)) {
    throw refuse(hex(op), at, 'exception handling with exnref, which Node 20 does not compile')
  } else if (TYPED_REFERENCE_OPCODES.has(op)) {
    throw refuse(hex(op), at, 'typed function references')
  } else {
    throw refuse(hex(op), at)
  }
}

/** Reads instructions up to and including the `end` that closes the expression (a function body or an init expression). */
function expression (r: Reader): void {
  let depth = 0
  for (;;) {
    const at = r.pos
    const op = r.byte()
    if (op === END) {
      if (depth === 0) return
      depth--
      continue
    }
    instruction(r, op, at)
    if (BLOCK_OPENERS.has(op)) depth++
    if (op === DELEGATE) {
      // try ... delegate: delegate closes its try block
      if (depth === 0) throw new InvalidWasmError(`delegate outside of a try block at byte ${at}`)
      depth--
    }
  }
}

/** The instructions of a constant expression on every Node jobmesh runs on (no extended-const arithmetic). */
const CONST_OPCODES = new Set([0x41, 0x42, 0x43, 0x44, 0x23, 0xd0, 0xd2])

/** Reads a constant expression (a global's initial value, a segment's offset, an element) up to its `end`. */
function constExpression (r: Reader): void {
  for (;;) {
    const at = r.pos
    const op = r.byte()
    if (op === END) return
    if (op === 0xfd) {
      // v128.const, the one SIMD instruction of a constant expression
      const sub = r.u32()
      if (sub !== 0x0c) throw refuse(`0xfd ${hex(sub)}`, at, 'in a constant expression')
      r.skip(16)
      continue
    }
    if (!CONST_OPCODES.has(op)) throw refuse(hex(op), at, 'in a constant expression: only constants, global.get, ref.null and ref.func')
    instruction(r, op, at)
  }
}

/** funcref or externref: the reference types of tables and element segments. */
function refType (r: Reader): void {
  const at = r.pos
  const type = r.byte()
  if (type !== 0x70 && type !== 0x6f) {
    throw new InvalidWasmError(`Module uses reference type ${hex(type)} (byte ${at}), a WasmGC/typed-reference type, which jobmesh does not run`)
  }
}

function tableSection (r: Reader): void {
  const count = r.u32()
  for (let i = 0; i < count; i++) {
    if (r.peek() === 0x40) throw new InvalidWasmError(`Module declares a table with an initial expression (byte ${r.pos}), which Node 20 does not compile`)
    refType(r)
    const at = r.pos
    const flags = r.byte()
    if (flags > 0x01) throw new InvalidWasmError(`Only a 32-bit, unshared table is supported (flags ${hex(flags)} at byte ${at})`)
    r.u32()
    if (flags === 0x01) r.u32()
  }
  r.expectEnd('table section')
}

/** Element segment forms 0-7: bit 0 passive or declarative, bit 1 a table index (active) or declarative, bit 2 expressions. */
function elementSection (r: Reader): void {
  const count = r.u32()
  for (let i = 0; i < count; i++) {
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
  r.expectEnd('element section')
}

/** Data segments: 0 active in memory 0, 1 passive, 2 active with a memory index; each offset a constant expression. */
function dataSection (r: Reader): void {
  const count = r.u32()
  for (let i = 0; i < count; i++) {
    const at = r.pos
    const flags = r.u32()
    if (flags > 2) throw new InvalidWasmError(`Unknown data segment form ${flags} at byte ${at}`)
    if (flags === 2) r.u32() // memory index
    if (flags !== 1) constExpression(r)
    r.skip(r.u32())
  }
  r.expectEnd('data section')
}

function typeSection (r: Reader): void {
  const count = r.u32()
  for (let i = 0; i < count; i++) {
    const at = r.pos
    const form = r.byte()
    const gc = GC_TYPE_FORMS.get(form)
    if (gc != null) {
      throw new InvalidWasmError(`Module declares a WasmGC type (${hex(form)}, ${gc}) at byte ${at}, which jobmesh does not run`)
    }
    if (form !== FUNC_TYPE) throw new InvalidWasmError(`Unknown type form ${hex(form)} at byte ${at}`)
    valueTypes(r) // params
    valueTypes(r) // results
  }
  r.expectEnd('type section')
}

function globalSection (r: Reader): void {
  const count = r.u32()
  for (let i = 0; i < count; i++) {
    valueType(r)
    const at = r.pos
    const mutability = r.byte()
    if (mutability > 0x01) throw new InvalidWasmError(`Unknown global mutability ${hex(mutability)} at byte ${at}`)
    constExpression(r)
  }
  r.expectEnd('global section')
}

function locals (r: Reader): void {
  const groups = r.u32()
  for (let i = 0; i < groups; i++) {
    r.u32() // how many locals of the type
    valueType(r)
  }
}

function codeSection (r: Reader): void {
  const count = r.u32()
  for (let i = 0; i < count; i++) {
    const body = r.sub(r.u32())
    locals(body)
    expression(body)
    body.expectEnd(`function body ${i}`)
  }
  r.expectEnd('code section')
}

const SECTION_READERS = new Map<number, (r: Reader) => void>([
  [SECTION_TYPE, typeSection], [SECTION_TABLE, tableSection], [SECTION_GLOBAL, globalSection], [SECTION_ELEMENT, elementSection],
  [SECTION_CODE, codeSection], [SECTION_DATA, dataSection]
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
    const read = SECTION_READERS.get(section.id)
    if (read != null) read(new Reader(bytes, section.contentStart, section.end))
  }
}
