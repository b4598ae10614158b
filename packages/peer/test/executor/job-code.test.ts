import { describe, expect, it } from 'vitest'
import { createWasmExecutor, DEFAULT_MAX_MEMORY_BYTES, MAX_TABLE_ENTRIES, validateJobCode } from '../../src/executor/index.js'
import { abiModule, buildModule, echoModule, fixedAlloc, i32, op, section, str as name, uleb, vec } from './wasm-builder.js'

const body = (code: number[]): number[] => [...uleb(code.length + 2), 0x00, ...code, op.end]
const V128_ZERO = [0xfd, 0x0c, ...new Array<number>(16).fill(0)]

/**
 * The echo module of the ABI with a third function `() -> ()` whose body is `extra` (never called), and optionally a
 * table section's and an element section's content.
 */
function echoWith (extra: number[], more: { table?: number[], elements?: number[] } = {}): Uint8Array {
  const I32 = 0x7f
  return Uint8Array.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, vec([[0x60, 1, I32, 1, I32], [0x60, 2, I32, I32, 1, I32], [0x60, 0, 0]])),
    ...section(3, vec([[0], [1], [2]])),
    ...(more.table == null ? [] : section(4, more.table)),
    ...section(5, vec([[0x00, 1]])),
    ...section(7, vec([[...name('memory'), 0x02, 0], [...name('alloc'), 0x00, 0], [...name('process'), 0x00, 1]])),
    ...(more.elements == null ? [] : section(9, more.elements)),
    ...section(10, vec([body(i32(8)), body([...i32(4), op.localGet, 1, op.i32Store, 2, 0, ...i32(4)]), body(extra)]))
  ])
}

describe('validateJobCode', () => {
  it('accepts a module with the ABI and only env.abort imported', async () => {
    await expect(validateJobCode(echoModule)).resolves.toBeUndefined()
    await expect(validateJobCode(abiModule([...i32(0)], { min: 2 }, [{ module: 'env', name: 'abort', params: 4, results: 0 }])))
      .resolves.toBeUndefined()
  })

  it('refuses bytes that are not WebAssembly or do not compile', async () => {
    await expect(validateJobCode(new TextEncoder().encode('#!/bin/sh\necho hello\n'))).rejects.toMatchObject({ name: 'InvalidWasmError', message: expect.stringMatching(/bad magic number/) })
    // an empty file (a build that wrote nothing) says so, not "bad magic number"
    await expect(validateJobCode(new Uint8Array(0))).rejects.toMatchObject({ name: 'InvalidWasmError', message: expect.stringMatching(/the file is empty/) })
    await expect(validateJobCode(Uint8Array.from([0x00, 0x61, 0x73, 0x6d, 0x02, 0x00, 0x00, 0x00])))
      .rejects.toMatchObject({ name: 'InvalidWasmError', message: expect.stringMatching(/version/) })
    await expect(validateJobCode(Uint8Array.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x05, 0x01])))
      .rejects.toMatchObject({ name: 'InvalidWasmError' })
  })

  it('refuses a table the executor would refuse (before anything is paid), accepts one within MAX_TABLE_ENTRIES', async () => {
    await expect(validateJobCode(abiModule(i32(4), { min: 2 }, [], { min: MAX_TABLE_ENTRIES + 1 }))).rejects.toMatchObject({ name: 'TableLimitError' })
    await expect(validateJobCode(abiModule(i32(4), { min: 2 }, [], { min: 16, max: 1_000_000 }))).resolves.toBeUndefined()
  })

  it('refuses a starting memory the executor would refuse (before anything is paid), accepts one within the default limit', async () => {
    const limitPages = DEFAULT_MAX_MEMORY_BYTES / 65_536
    await expect(validateJobCode(abiModule(i32(4), { min: limitPages + 1 }))).rejects.toMatchObject({
      name: 'MemoryLimitError', message: `Module declares ${limitPages + 1} memory pages, limit ${limitPages}`
    })
    // a maximum above the limit is capped when it runs (growing past the limit fails that run), not refused
    await expect(validateJobCode(abiModule(i32(4), { min: limitPages, max: 65_536 }))).resolves.toBeUndefined()
  })

  it('refuses alloc or process of another type than the ABI\'s, which every run would fail on every peer after the job is paid', async () => {
    const abi = '(the job ABI: memory "memory", functions "alloc" and "process")'
    // the AssemblyScript slip `export function process (ptr: usize, len: i32): void`
    const voidProcess = buildModule({ memory: { min: 1, export: 'memory' }, funcs: [fixedAlloc, { params: 2, results: 0, export: 'process', body: [] }] })
    await expect(validateJobCode(voidProcess)).rejects.toMatchObject({
      name: 'MissingExportError', message: `Module exports "process" as a function (i32, i32) -> (), not (i32, i32) -> i32 ${abi}`
    })
    const oneParamProcess = buildModule({ memory: { min: 1, export: 'memory' }, funcs: [fixedAlloc, { params: 1, results: 1, export: 'process', body: i32(4) }] })
    await expect(validateJobCode(oneParamProcess)).rejects.toMatchObject({
      name: 'MissingExportError', message: `Module exports "process" as a function (i32) -> i32, not (i32, i32) -> i32 ${abi}`
    })
    const noParamAlloc = buildModule({
      memory: { min: 1, export: 'memory' },
      funcs: [{ params: 0, results: 1, export: 'alloc', body: i32(8) }, { params: 2, results: 1, export: 'process', body: i32(4) }]
    })
    await expect(validateJobCode(noParamAlloc)).rejects.toMatchObject({
      name: 'MissingExportError', message: `Module exports "alloc" as a function () -> i32, not (i32) -> i32 ${abi}`
    })
    // the executor refuses it too, before any run
    const executor = createWasmExecutor({ concurrency: 1 })
    try {
      await expect(executor.run(voidProcess, new Uint8Array(1))).rejects.toMatchObject({ name: 'MissingExportError' })
      await expect(executor.run(echoModule, Uint8Array.of(7))).resolves.toEqual(Uint8Array.of(7))
    } finally {
      await executor.stop()
    }
  })

  it('refuses a module without the ABI exports or with other imports', async () => {
    // each message names the missing export once, and what it should be
    await expect(validateJobCode(buildModule({ memory: { min: 1, export: 'memory' }, funcs: [fixedAlloc] })))
      .rejects.toMatchObject({ name: 'MissingExportError', message: 'Module does not export the function "process" (the job ABI: memory "memory", functions "alloc" and "process")' })
    await expect(validateJobCode(buildModule({ memory: { min: 1 }, funcs: [fixedAlloc, { params: 2, results: 1, export: 'process', body: i32(4) }] })))
      .rejects.toMatchObject({ name: 'MissingExportError', message: 'Module does not export its memory as "memory" (the job ABI: memory "memory", functions "alloc" and "process")' })
    await expect(validateJobCode(buildModule({ memory: { min: 1 }, funcs: [{ ...fixedAlloc, export: 'memory' }] })))
      .rejects.toMatchObject({ name: 'MissingExportError', message: 'Module exports "memory" as a function, not as a memory (the job ABI: memory "memory", functions "alloc" and "process")' })
    await expect(validateJobCode(abiModule([...i32(4)], { min: 2 }, [{ module: 'wasi_snapshot_preview1', name: 'fd_write', params: 4, results: 1 }])))
      .rejects.toMatchObject({ name: 'ForbiddenImportError' })
  })

  it('refuses relaxed SIMD and WasmGC on every Node (Node 20 does not compile them, Node 22+ does): so does the executor', async () => {
    const plainSimd = echoWith([...V128_ZERO, ...V128_ZERO, 0xfd, 0x0e, op.drop]) // i8x16.swizzle
    const relaxedSimd = echoWith([...V128_ZERO, ...V128_ZERO, 0xfd, 0x80, 0x02, op.drop]) // i8x16.relaxed_swizzle
    const gc = echoWith([...i32(1), 0xfb, 0x1c, op.drop]) // ref.i31
    // what Node 24 compiles and Node 20 does not, outside function bodies and beside relaxed SIMD: a passive element
    // segment of i31ref holding ref.i31, a table of a typed reference (ref null $2), a try_table
    const gcElements = echoWith([], { elements: vec([[0x05, 0x6c, ...vec([[...i32(1), 0xfb, 0x1c, op.end]])]]) })
    const typedTable = echoWith([], { table: vec([[0x63, 0x02, 0x00, 0x01]]) })
    const tryTable = echoWith([0x1f, 0x40, 0x00, op.end])
    await expect(validateJobCode(plainSimd)).resolves.toBeUndefined()
    for (const refused of [relaxedSimd, gc, gcElements, typedTable, tryTable]) {
      await expect(validateJobCode(refused)).rejects.toMatchObject({ name: 'InvalidWasmError' })
    }
    const executor = createWasmExecutor({ concurrency: 1 })
    try {
      const input = new TextEncoder().encode('same everywhere')
      expect(await executor.run(plainSimd, input)).toEqual(input)
      await expect(executor.run(relaxedSimd, input)).rejects.toMatchObject({ name: 'InvalidWasmError' })
      for (const refused of [gc, gcElements, typedTable, tryTable]) {
        await expect(executor.prepare(refused)).rejects.toMatchObject({ name: 'InvalidWasmError' })
      }
    } finally {
      await executor.stop()
    }
  })
})
