import { beforeAll, describe, expect, it } from 'vitest'
// @ts-expect-error: a plain .mjs build script without type declarations
import { generate } from '../../../../examples/scripts/generate.mjs'
import { loadExampleWasm } from '../../../../examples/src/index.js'
import { sections } from '../../src/executor/wasm-binary.js'
import { checkDeterministicFeatures } from '../../src/executor/wasm-features.js'
import { abiModule, buildModule, echoModule, i32, op, section, uleb, vec } from './wasm-builder.js'

// Hand-assembled modules (wasm-builder.js only writes i32 functions).
const I32 = 0x7f
const I64 = 0x7e
const F64 = 0x7c
const V128 = 0x7b
const FUNCREF = 0x70
const EXTERNREF = 0x6f


function wasm (...sections: number[][]): Uint8Array {
  return Uint8Array.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, ...sections.flat()])
}

function funcType (params: number[], results: number[]): number[] {
  return [0x60, ...vec(params.map(t => [t])), ...vec(results.map(t => [t]))]
}

/** A function body: `locals` as [count, type] groups, then `code`, then `end`. */
function body (code: number[], locals: number[][] = []): number[] {
  const content = [...vec(locals.map(([count, type]) => [...uleb(count), type])), ...code, op.end]
  return [...uleb(content.length), ...content]
}

/** One function of type 0 `() -> ()` with `code` (and `locals`), and one page of memory. */
function oneFunction (code: number[], locals: number[][] = []): Uint8Array {
  return wasm(
    section(1, vec([funcType([], [])])),
    section(3, vec([[0x00]])),
    section(5, vec([[0x00, 0x01]])),
    section(10, vec([body(code, locals)]))
  )
}

/** Signed LEB128 of a 64-bit integer. */
function sleb64 (value: bigint): number[] {
  const out: number[] = []
  let v = value
  for (;;) {
    const byte = Number(v & 0x7fn)
    v >>= 7n
    if ((v === 0n && (byte & 0x40) === 0) || (v === -1n && (byte & 0x40) !== 0)) {
      out.push(byte)
      return out
    }
    out.push(byte | 0x80)
  }
}

const simd = (sub: number, ...immediates: number[]): number[] => [0xfd, ...uleb(sub), ...immediates]
const bytes16 = Array.from({ length: 16 }, (_, i) => i)

/** Plain SIMD, bulk memory, br_table, select t, a large negative i64.const, globals with init expressions. */
const featuresModule = wasm(
  section(1, vec([
    funcType([], [I32]),
    funcType([V128, I64, F64, FUNCREF, EXTERNREF], []),
    funcType([I32], [I32])
  ])),
  section(3, vec([[0x00], [0x01]])),
  section(5, vec([[0x00, 0x01]])),
  section(6, vec([
    [I64, 0x01, 0x42, ...sleb64(-9_000_000_000_000_000_000n), op.end],
    [I32, 0x00, ...i32(-123_456), op.end],
    [FUNCREF, 0x00, 0xd2, 0x00, op.end],
    [EXTERNREF, 0x01, 0xd0, EXTERNREF, op.end]
  ])),
  section(10, vec([
    body([
      // v128.load align=4 offset=16, v128.const, i8x16.shuffle, i32x4.add (a two-byte sub-opcode), extract_lane 1
      ...i32(0), ...simd(0x00, 0x04, 0x10), ...simd(0x0c, ...bytes16), ...simd(0x0d, ...bytes16.map(b => b * 2)),
      ...simd(0x0c, ...bytes16), ...simd(0xae), ...simd(0x1b, 0x01), op.drop,
      // v128.store, a load lane
      ...i32(32), ...simd(0x0c, ...bytes16), ...simd(0x0b, 0x04, 0x00),
      ...i32(0), ...simd(0x0c, ...bytes16), ...simd(0x54, 0x00, 0x00, 0x03), op.drop,
      // memory.copy, memory.fill
      ...i32(0), ...i32(16), ...i32(8), 0xfc, 0x0a, 0x00, 0x00,
      ...i32(0), ...i32(7), ...i32(4), 0xfc, 0x0b, 0x00,
      // block block block (br_table [0 1] 2) end end end
      0x02, op.void, 0x02, op.void, 0x02, op.void, ...i32(1), 0x0e, 0x02, 0x00, 0x01, 0x02, op.end, op.end, op.end,
      // select (result i64) of a large negative i64.const, into the i64 local
      0x42, ...sleb64(-9_000_000_000_000_000_000n), 0x42, ...sleb64(1n), ...i32(0), 0x1c, 0x01, I64, 0x21, 0x01,
      // global.get, a block typed by a type index, if (result i32) ... else ... end, f64.const, i64.extend32_s
      0x23, 0x00, 0x21, 0x01, ...i32(5), 0x02, 0x02, ...i32(1), 0x6a, op.end, op.drop,
      0x44, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0x21, 0x02, 0x23, 0x00, 0xc4, op.drop,
      ...i32(1), 0x04, I32, ...i32(2), 0x05, ...i32(3), op.end
    ], [[1, V128], [1, I64], [1, F64]]),
    body([])
  ]))
)

function refusal (bytes: Uint8Array): unknown {
  try {
    checkDeterministicFeatures(bytes)
  } catch (err) {
    return err
  }
  return undefined
}

describe('checkDeterministicFeatures', () => {
  beforeAll(async () => {
    await generate()
  })

  it('accepts the example jobs', async () => {
    for (const name of ['mandelbrot', 'mandelbrot-palette', 'wordcount'] as const) {
      const bytes = await loadExampleWasm(name)
      expect(() => { checkDeterministicFeatures(bytes) }).not.toThrow()
    }
  })

  it('accepts the test modules', () => {
    for (const bytes of [echoModule, abiModule([...i32(0), ...op.memoryGrow], { min: 1, max: 3 }), buildModule({ funcs: [] }),
      abiModule([...op.refNullFunc, ...i32(1), ...op.tableGrow], { min: 2 }, [], { min: 1 })]) {
      expect(WebAssembly.validate(bytes)).toBe(true)
      expect(() => { checkDeterministicFeatures(bytes) }).not.toThrow()
    }
  })

  it('accepts plain SIMD, bulk memory, br_table, select t, i64 constants and global init expressions', () => {
    expect(WebAssembly.validate(featuresModule)).toBe(true)
    expect(() => { checkDeterministicFeatures(featuresModule) }).not.toThrow()
  })

  it('refuses relaxed SIMD', () => {
    const swizzle = oneFunction([...simd(0x0c, ...bytes16), ...simd(0x0c, ...bytes16), ...simd(0x100), op.drop])
    expect(swizzle.includes(0x80)).toBe(true) // 0x100 is the two-byte LEB128 0x80 0x02
    expect(refusal(swizzle)).toMatchObject({ name: 'InvalidWasmError' })
  })

  it('refuses WasmGC types, value types and instructions', () => {
    // (type (struct (field i32)))
    expect(refusal(wasm(section(1, vec([[0x5f, ...vec([[I32, 0x00]])]]))))).toMatchObject({ name: 'InvalidWasmError' })
    // (rec (type (func)))
    expect(refusal(wasm(section(1, vec([[0x4e, ...vec([funcType([], [])])]]))))).toMatchObject({ name: 'InvalidWasmError' })
    // a local of type i31ref
    expect(refusal(oneFunction([], [[1, 0x6c]]))).toMatchObject({ name: 'InvalidWasmError' })
    // (global anyref (ref.null any))
    expect(refusal(wasm(section(6, vec([[0x6e, 0x00, 0xd0, 0x6e, op.end]]))))).toMatchObject({ name: 'InvalidWasmError' })
    // ref.i31
    expect(refusal(oneFunction([...i32(1), 0xfb, 0x1c, op.drop]))).toMatchObject({ name: 'InvalidWasmError' })
    // a block typed (ref null func), call_ref, ref.null of a type index
    expect(refusal(oneFunction([0x02, 0x63, 0x70, op.end, op.drop]))).toMatchObject({ name: 'InvalidWasmError' })
    expect(refusal(oneFunction([0x14, 0x00]))).toMatchObject({ name: 'InvalidWasmError' })
    expect(refusal(oneFunction([0xd0, 0x00, op.drop]))).toMatchObject({ name: 'InvalidWasmError' })
  })

  it('refuses a truncated body, bytes after a body\'s end and unknown opcodes', () => {
    // the body's size says 10, 3 bytes follow (the section's size is right)
    expect(refusal(wasm(section(1, vec([funcType([], [])])), section(3, vec([[0x00]])),
      section(10, [0x01, 0x0a, 0x00, 0x01, op.end])))).toMatchObject({ name: 'InvalidWasmError' })
    // nop after the function's end (garbage that decodes as an instruction)
    expect(refusal(wasm(section(1, vec([funcType([], [])])), section(3, vec([[0x00]])),
      section(10, [0x01, 0x03, 0x00, op.end, 0x01])))).toMatchObject({ name: 'InvalidWasmError' })
    // a body that never ends, an i32.const without its number, an unknown opcode
    expect(refusal(wasm(section(10, [0x01, 0x02, 0x00, 0x01])))).toMatchObject({ name: 'InvalidWasmError' })
    expect(refusal(wasm(section(10, [0x01, 0x02, 0x00, 0x41])))).toMatchObject({ name: 'InvalidWasmError' })
    for (const code of [[0xc5], [0x27], [0xff], simd(0x9a), simd(0x114), [0xfc, 0x12], [0xfe, 0x04]]) {
      expect(refusal(oneFunction(code))).toMatchObject({ name: 'InvalidWasmError' })
    }
  })

  it('reads every truncation and 5 000 random byte changes of a valid module without hanging, refusing only with InvalidWasmError', () => {
    // a truncation at a section boundary is a valid module; inside the code section (the last one) it is refused
    const code = sections(featuresModule).find(s => s.id === 10)
    for (let length = 0; length < featuresModule.length; length++) {
      const err = refusal(featuresModule.subarray(0, length))
      if (length > code!.start) expect(err).toMatchObject({ name: 'InvalidWasmError' })
      else if (err !== undefined) expect(err).toMatchObject({ name: 'InvalidWasmError' })
    }
    let seed = 1
    const random = (n: number): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
      return seed % n
    }
    for (let i = 0; i < 5000; i++) {
      const changed = Uint8Array.from(featuresModule)
      changed[8 + random(changed.length - 8)] = random(256)
      const err = refusal(changed)
      if (err !== undefined) expect(err).toMatchObject({ name: 'InvalidWasmError' })
    }
  })
})
