/**
 * The instructions of a job module, decoded with their immediates against an allow-list (what Node 20 compiles, without
 * relaxed SIMD, WasmGC and exnref): function bodies and constant expressions (`wasm-features.ts` walks the sections).
 */
import { InvalidWasmError } from './errors.js'
import { hex, valueType, valueTypes } from './wasm-reader.js'
import type { Reader } from './wasm-reader.js'

const EMPTY_BLOCK = 0x40
const END = 0x0b
const DELEGATE = 0x18

/** The error of an instruction jobmesh does not run (`why`: the feature it belongs to). */
function refuse (opcode: string, at: number, why?: string): InvalidWasmError {
  return new InvalidWasmError(`Module uses instruction ${opcode} (byte ${at}), which jobmesh does not run${why == null ? '' : ` (${why})`}`)
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
export function expression (r: Reader): void {
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
export function constExpression (r: Reader): void {
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
