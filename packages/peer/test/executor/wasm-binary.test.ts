import { describe, expect, it } from 'vitest'
import { capMemory, capTable, readMemoryLimits } from '../../src/executor/wasm-binary.js'
import { abiModule, buildModule, echoModule, i32 } from './wasm-builder.js'

describe('wasm binary checks', () => {
  it('reads the declared memory limits', () => {
    expect(readMemoryLimits(echoModule)).toEqual({ min: 2 })
    expect(readMemoryLimits(abiModule(i32(4), { min: 3, max: 300 }))).toEqual({ min: 3, max: 300 })
    expect(readMemoryLimits(buildModule({ funcs: [] }))).toBeUndefined()
  })

  it('caps the memory maximum and leaves the rest of the module intact', async () => {
    const capped = capMemory(echoModule, 17)
    expect(readMemoryLimits(capped)).toEqual({ min: 2, max: 17 })
    const module = await WebAssembly.compile(capped)
    expect(WebAssembly.Module.exports(module).map(e => e.name)).toEqual(['memory', 'alloc', 'process'])
    // a large declared maximum is lowered (the LEB128 size changes), a small one is kept
    expect(readMemoryLimits(capMemory(abiModule(i32(4), { min: 1, max: 60_000 }), 17))).toEqual({ min: 1, max: 17 })
    const small = abiModule(i32(4), { min: 1, max: 5 })
    expect(capMemory(small, 17)).toBe(small)
  })

  it('caps the table maximum, refuses a table declared larger than the cap, and leaves the rest intact', async () => {
    const open = abiModule(i32(4), { min: 2 }, [], { min: 3 })
    const capped = capTable(open, 100)
    const module = await WebAssembly.compile(capped)
    expect(WebAssembly.Module.exports(module).map(e => e.name)).toEqual(['memory', 'alloc', 'process'])
    // a large declared maximum is lowered too (what table.grow then gets: executor.test.ts), a small one is kept
    const lowered = capTable(abiModule(i32(4), { min: 2 }, [], { min: 3, max: 60_000 }), 100)
    expect(WebAssembly.validate(lowered)).toBe(true)
    expect(capTable(lowered, 100)).toBe(lowered)
    const small = abiModule(i32(4), { min: 2 }, [], { min: 3, max: 50 })
    expect(capTable(small, 100)).toBe(small)
    expect(capTable(echoModule, 100)).toBe(echoModule)
    expect(() => capTable(abiModule(i32(4), { min: 2 }, [], { min: 101 }), 100)).toThrow(expect.objectContaining({ name: 'TableLimitError' }))
  })

  it('rejects what is not a module', () => {
    expect(() => readMemoryLimits(new Uint8Array(3))).toThrow(expect.objectContaining({ name: 'InvalidWasmError' }))
    const truncated = echoModule.subarray(0, echoModule.length - 3)
    expect(() => readMemoryLimits(truncated)).toThrow(expect.objectContaining({ name: 'InvalidWasmError' }))
  })
})
