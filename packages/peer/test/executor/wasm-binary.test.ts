import { describe, expect, it } from 'vitest'
import { capMemory, readMemoryLimits } from '../../src/executor/wasm-binary.js'
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

  it('rejects what is not a module', () => {
    expect(() => readMemoryLimits(new Uint8Array(3))).toThrow(expect.objectContaining({ name: 'InvalidWasmError' }))
    const truncated = echoModule.subarray(0, echoModule.length - 3)
    expect(() => readMemoryLimits(truncated)).toThrow(expect.objectContaining({ name: 'InvalidWasmError' }))
  })
})
