import { describe, expect, it } from 'vitest'
import { MAX_TABLE_ENTRIES, validateJobCode } from '../../src/executor/index.js'
import { abiModule, buildModule, echoModule, fixedAlloc, i32 } from './wasm-builder.js'

describe('validateJobCode', () => {
  it('accepts a module with the ABI and only env.abort imported', async () => {
    await expect(validateJobCode(echoModule)).resolves.toBeUndefined()
    await expect(validateJobCode(abiModule([...i32(0)], { min: 2 }, [{ module: 'env', name: 'abort', params: 4, results: 0 }])))
      .resolves.toBeUndefined()
  })

  it('refuses bytes that are not WebAssembly or do not compile', async () => {
    await expect(validateJobCode(new TextEncoder().encode('#!/bin/sh\necho hello\n'))).rejects.toMatchObject({ name: 'InvalidWasmError' })
    await expect(validateJobCode(new Uint8Array(0))).rejects.toMatchObject({ name: 'InvalidWasmError' })
    await expect(validateJobCode(Uint8Array.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x05, 0x01])))
      .rejects.toMatchObject({ name: 'InvalidWasmError' })
  })

  it('refuses a table the executor would refuse (before anything is paid), accepts one within MAX_TABLE_ENTRIES', async () => {
    await expect(validateJobCode(abiModule(i32(4), { min: 2 }, [], { min: MAX_TABLE_ENTRIES + 1 }))).rejects.toMatchObject({ name: 'TableLimitError' })
    await expect(validateJobCode(abiModule(i32(4), { min: 2 }, [], { min: 16, max: 1_000_000 }))).resolves.toBeUndefined()
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
})
