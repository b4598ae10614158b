import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createWasmExecutor, MAX_TABLE_ENTRIES, outputHash } from '../../src/executor/index.js'
import type { WasmExecutor } from '../../src/executor/index.js'
import { abiModule, buildModule, echoModule, fixedAlloc, i32, op } from './wasm-builder.js'

const PAGE = 65_536
const MEMORY_LIMIT = 16 * PAGE // 1 MiB
const OUTPUT_LIMIT = 256 * 1024

const abortImport = { module: 'env', name: 'abort', params: 4, results: 0 as const }

const bad = {
  trap: abiModule([op.unreachable, ...i32(0)]),
  abort: abiModule([...i32(0), ...i32(0), ...i32(7), ...i32(9), op.call, 0, op.unreachable, ...i32(0)],
    { min: 2 }, [abortImport]),
  // process calls itself forever (function 1 is process)
  stackOverflow: abiModule([op.localGet, 0, op.localGet, 1, op.call, 1]),
  endlessLoop: abiModule([op.loop, op.void, op.br, 0, op.end, ...i32(0)]),
  // grows one page at a time until the engine refuses, then traps
  memoryBomb: abiModule([op.loop, op.void, ...i32(1), ...op.memoryGrow, ...i32(-1), op.i32Ne, op.brIf, 0, op.end,
    op.unreachable, ...i32(0)]),
  hugeMinimum: abiModule([...i32(4)], { min: 64 }),
  // claims an output of OUTPUT_LIMIT + 1 bytes that really is in memory
  hugeOutput: abiModule([...i32(0), ...i32(OUTPUT_LIMIT + 1), op.i32Store, 2, 0, ...i32(0)], { min: 8 }),
  outOfBoundsOutput: abiModule([...i32(2 * PAGE - 2)]),
  forbiddenImport: abiModule([...i32(4)], { min: 2 },
    [{ module: 'wasi_snapshot_preview1', name: 'fd_write', params: 4, results: 1 }]),
  missingProcess: buildModule({ memory: { min: 1, export: 'memory' }, funcs: [fixedAlloc] }),
  missingMemory: buildModule({ memory: { min: 1 }, funcs: [fixedAlloc, { params: 2, results: 1, export: 'process', body: i32(4) }] }),
  // a table of 6 million entries: V8 builds it in the worker's JS heap, and past that heap it aborted the whole process
  hugeTable: abiModule(i32(4), { min: 2 }, [], { min: 6_000_000 }),
  notWasm: new TextEncoder().encode('this is not a WebAssembly module'),
  brokenWasm: Uint8Array.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x05, 0x01])
}

describe('wasm executor', () => {
  let executor: WasmExecutor
  const input = new TextEncoder().encode('hello jobmesh')

  beforeAll(() => {
    executor = createWasmExecutor({
      concurrency: 2, timeoutMs: 1_000, maxMemoryBytes: MEMORY_LIMIT, maxOutputBytes: OUTPUT_LIMIT
    })
  })

  afterAll(async () => {
    await executor.stop()
  })

  const stillWorks = async (): Promise<void> => {
    expect(await executor.run(echoModule, input)).toEqual(input)
  }

  it('runs a module that follows the ABI', async () => {
    const output = await executor.run(echoModule, input)
    expect(output).toEqual(input)
    expect(outputHash(output)).toBe('0x' + (await import('node:crypto')).createHash('sha256').update(input).digest('hex'))
    expect(outputHash(new Uint8Array(0))).toBe('0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855')
  })

  it('runs in parallel and reuses workers', async () => {
    const inputs = Array.from({ length: 6 }, (_, i) => Uint8Array.of(i, i + 1, i + 2))
    const outputs = await Promise.all(inputs.map(async i => executor.run(echoModule, i)))
    expect(outputs).toEqual(inputs)
  })

  it('holds a run to its own output limit below the executor\'s (the lower one applies)', async () => {
    // the echo's output is its input: 13 bytes
    expect(await executor.run(echoModule, input, { maxOutputBytes: input.length })).toEqual(input)
    await expect(executor.run(echoModule, input, { maxOutputBytes: input.length - 1 })).rejects.toMatchObject({ name: 'OutputTooLargeError' })
    // a run may not raise the executor's own limit
    await expect(executor.run(bad.hugeOutput, input, { maxOutputBytes: 2 * OUTPUT_LIMIT })).rejects.toMatchObject({ name: 'OutputTooLargeError' })
    // nor lift it with a value that is no limit at all
    for (const maxOutputBytes of [Number.NaN, Infinity, -1]) {
      await expect(executor.run(bad.hugeOutput, input, { maxOutputBytes })).rejects.toMatchObject({ name: 'OutputTooLargeError' })
    }
    await stillWorks()
  })

  it('does not change the caller\'s input', async () => {
    const mine = Uint8Array.of(1, 2, 3)
    await executor.run(echoModule, mine)
    expect(mine).toEqual(Uint8Array.of(1, 2, 3))
    // a Buffer from Node's shared pool, as fs and sockets return
    const pooled = Buffer.from('pooled input')
    expect(await executor.run(echoModule, pooled)).toEqual(new Uint8Array(pooled))
    expect(pooled.toString()).toBe('pooled input')
  })

  it.each([
    ['trap', bad.trap, 'WasmTrapError'],
    ['stack overflow', bad.stackOverflow, 'WasmTrapError'],
    ['endless loop', bad.endlessLoop, 'ExecutionTimeoutError'],
    ['memory bomb', bad.memoryBomb, 'MemoryLimitError'],
    ['declared memory above the limit', bad.hugeMinimum, 'MemoryLimitError'],
    ['huge output', bad.hugeOutput, 'OutputTooLargeError'],
    ['output outside memory', bad.outOfBoundsOutput, 'AbiViolationError'],
    ['forbidden import', bad.forbiddenImport, 'ForbiddenImportError'],
    ['missing process export', bad.missingProcess, 'MissingExportError'],
    ['missing memory export', bad.missingMemory, 'MissingExportError'],
    ['table above the limit', bad.hugeTable, 'TableLimitError'],
    ['not wasm at all', bad.notWasm, 'InvalidWasmError'],
    ['truncated wasm', bad.brokenWasm, 'InvalidWasmError']
  ])('fails a %s with its typed error and keeps working', async (_, code, name) => {
    await expect(executor.run(code, input)).rejects.toMatchObject({ name })
    await stillWorks()
  })

  it('a table grows no further than MAX_TABLE_ENTRIES: table.grow of 10 million entries returns -1, the process lives on', async () => {
    // process: stores table.grow(null, n) at 8 and its length (4) at 4, returns 4: the output is the grow's result
    const grow = (n: number): Uint8Array => abiModule([...i32(8), ...op.refNullFunc, ...i32(n), ...op.tableGrow, op.i32Store, 2, 0,
      ...i32(4), ...i32(4), op.i32Store, 2, 0, ...i32(4)], { min: 2 }, [], { min: 0 })
    const result = (out: Uint8Array): number => new DataView(out.buffer, out.byteOffset, out.byteLength).getInt32(0, true)
    expect(result(await executor.run(grow(10_000_000), input))).toBe(-1)
    expect(result(await executor.run(grow(MAX_TABLE_ENTRIES + 1), input))).toBe(-1)
    // within the limit a table grows as the module asks (from 0: the old size)
    expect(result(await executor.run(grow(1_000), input))).toBe(0)
    await stillWorks()
  })

  it('reports env.abort as a trap', async () => {
    const err = await executor.run(bad.abort, input).catch((e: Error) => e)
    expect(err).toMatchObject({ name: 'WasmTrapError' })
    expect((err as Error).message).toMatch(/^abort/)
    await stillWorks()
  })

  it('checks modules without running them', async () => {
    await expect(executor.prepare(echoModule)).resolves.toMatch(/^0x[0-9a-f]{64}$/)
    await expect(executor.prepare(bad.forbiddenImport)).rejects.toMatchObject({ name: 'ForbiddenImportError' })
  })

  it('aborts a run', async () => {
    const controller = new AbortController()
    const run = executor.run(bad.endlessLoop, input, { signal: controller.signal, timeoutMs: 30_000 })
    controller.abort()
    await expect(run).rejects.toMatchObject({ name: 'AbortError' })
    const aborted = AbortSignal.abort()
    await expect(executor.run(echoModule, input, { signal: aborted })).rejects.toMatchObject({ name: 'AbortError' })
    await stillWorks()
  })

  it('frees the worker of an aborted run for the next one', async () => {
    const single = createWasmExecutor({ concurrency: 1, timeoutMs: 30_000 })
    try {
      const controller = new AbortController()
      const loop = single.run(bad.endlessLoop, input, { signal: controller.signal })
      const loopFailed = loop.catch((e: Error) => e)
      const queued = single.run(echoModule, input)
      // the queued run waits behind the loop; aborting the loop frees the worker for it
      controller.abort()
      expect(await loopFailed).toMatchObject({ name: 'AbortError' })
      expect(await queued).toEqual(input)
    } finally {
      await single.stop()
    }
  })

  it('fails an input above the limit', async () => {
    const small = createWasmExecutor({ concurrency: 1, maxInputBytes: 4 })
    try {
      await expect(small.run(echoModule, input)).rejects.toMatchObject({ name: 'InputTooLargeError' })
    } finally {
      await small.stop()
    }
  })

  it('fails queued and running runs when stopped', async () => {
    const other = createWasmExecutor({ concurrency: 1, timeoutMs: 30_000 })
    const running = other.run(bad.endlessLoop, input).catch((e: Error) => e)
    const queued = other.run(echoModule, input).catch((e: Error) => e)
    await other.stop()
    expect(await running).toMatchObject({ name: 'ExecutorStoppedError' })
    expect(await queued).toMatchObject({ name: 'ExecutorStoppedError' })
    await expect(other.run(echoModule, input)).rejects.toMatchObject({ name: 'ExecutorStoppedError' })
  })
})
