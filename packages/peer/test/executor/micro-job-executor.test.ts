import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL, fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createWasmExecutor, wasmMicroJobExecutor } from '../../src/executor/index.js'
import { echoModule } from './wasm-builder.js'
import { createContentStore } from '../../src/storage/index.js'
import type { MicroJobTask, WasmExecutor } from '../../src/executor/index.js'
import type { ContentStore, FetchOptions } from '../../src/storage/index.js'

const WASM = fileURLToPath(new URL('../../../../examples/build/wordcount.wasm', import.meta.url))

function task (spec: Partial<MicroJobTask['spec']>, start: number, end: number, index = 0): MicroJobTask {
  return {
    jobId: '0x' + '01'.repeat(32),
    spec: { estimate: { secondsPerMicroJob: 1 }, ...spec } as MicroJobTask['spec'],
    macroIndex: 0,
    index,
    microId: '0x' + '02'.repeat(32),
    start,
    end
  }
}

/**
 * A content store that reads this test's files, which stand for a job's content: a job may not name `file://`
 * (`fromNetwork`, refused in content-store.test.ts), so the store reads them as a local caller would.
 */
function localFiles (onFetch?: (uri: string, options?: FetchOptions) => void): Pick<ContentStore, 'fetch'> {
  const real = createContentStore({ helia: {} as never })
  return {
    fetch: async (uri, options) => {
      onFetch?.(uri, options)
      return await real.fetch(uri, { ...options, fromNetwork: false })
    }
  }
}

describe('wasmMicroJobExecutor', () => {
  let dir: string
  let executor: WasmExecutor
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'jobmesh-adapter-'))
    executor = createWasmExecutor({ concurrency: 1 })
  })
  afterEach(async () => {
    await executor.stop()
    await rm(dir, { recursive: true, force: true })
  })

  it('runs the job code on the MicroJob block range and caches code by URI', async () => {
    const code = await readFile(WASM)
    const text = new TextEncoder().encode('alpha beta gamma alpha\n'.repeat(40)) // 920 bytes
    const codePath = join(dir, 'wordcount.wasm')
    const dataPath = join(dir, 'data.txt')
    await writeFile(codePath, code)
    await writeFile(dataPath, text)
    let codeFetches = 0
    const asked: Array<boolean | undefined> = []
    const store = localFiles((uri, options) => {
      if (uri.endsWith('.wasm')) codeFetches++
      asked.push(options?.fromNetwork)
    })
    const spec = { codeUri: pathToFileURL(codePath).href, dataUri: pathToFileURL(dataPath).href, blockSize: 100 }
    const adapter = wasmMicroJobExecutor({ store, executor })
    const signal = AbortSignal.timeout(30_000)

    const { output: out } = await adapter.run(task(spec, 2, 5), { signal })
    expect(out).toEqual(await executor.run(new Uint8Array(code), text.subarray(200, 500), { signal }))
    // the last MicroJob's range is clamped to the data size
    const { output: last } = await adapter.run(task(spec, 9, 12), { signal })
    expect(last).toEqual(await executor.run(new Uint8Array(code), text.subarray(900), { signal }))
    expect(codeFetches).toBe(1)
    // two runs of a MicroJob (a processor's and a verifier's) give the same execution digest (what a work tag is made of)
    const [run, rerun] = [await adapter.run(task(spec, 2, 5), { signal }), await adapter.run(task(spec, 2, 5), { signal })]
    expect(run.digest).toMatch(/^0x[0-9a-f]{64}$/)
    expect(run.digest).toBe(rerun.digest)
    expect(run.digest).not.toBe((await adapter.run(task(spec, 9, 12), { signal })).digest)
    // a job's URIs are read as the network's: only what a job may name (content-store.test.ts)
    expect(asked.length).toBeGreaterThan(0)
    expect(asked.every(a => a === true)).toBe(true)
  })

  it('holds every run of a job to the output bound its spec declares (estimate.maxOutputBytes)', async () => {
    const codePath = join(dir, 'echo.wasm')
    const dataPath = join(dir, 'data.bin')
    await writeFile(codePath, echoModule)
    await writeFile(dataPath, new Uint8Array(64).fill(7))
    const adapter = wasmMicroJobExecutor({ store: localFiles(), executor })
    const spec = { codeUri: pathToFileURL(codePath).href, dataUri: pathToFileURL(dataPath).href, blockSize: 16 }
    const signal = AbortSignal.timeout(10_000)
    // two blocks in: the echo outputs them, 32 bytes
    const run = async (maxOutputBytes?: number): Promise<unknown> =>
      await adapter.run(task({ ...spec, estimate: { secondsPerMicroJob: 1, ...(maxOutputBytes == null ? {} : { maxOutputBytes }) } }, 0, 2), { signal })
    expect(await run()).toMatchObject({ output: new Uint8Array(32).fill(7) })
    expect(await run(32)).toMatchObject({ output: new Uint8Array(32).fill(7) })
    await expect(run(31)).rejects.toMatchObject({ name: 'OutputTooLargeError' })
  })

  it('fails the MicroJob with the store error when the data is missing', async () => {
    const adapter = wasmMicroJobExecutor({ store: localFiles(), executor })
    const spec = { codeUri: pathToFileURL(join(dir, 'none.wasm')).href, dataUri: pathToFileURL(join(dir, 'none')).href, blockSize: 1 }
    await expect(adapter.run(task(spec, 0, 1), { signal: AbortSignal.timeout(10_000) })).rejects.toMatchObject({ name: 'ContentNotFoundError' })
  })

  it('keeps code and models within a byte budget: the least recently used are fetched again', async () => {
    const model = (i: number): Uint8Array => new Uint8Array(1_000).fill(i)
    const content = new Map<string, Uint8Array>([['ipfs://code', echoModule], ['ipfs://data', new Uint8Array(64)],
      ['ipfs://m1', model(1)], ['ipfs://m2', model(2)], ['ipfs://m3', model(3)]])
    const fetches = new Map<string, number>()
    const store: Pick<ContentStore, 'fetch'> = {
      fetch: async (uri, options) => {
        fetches.set(uri, (fetches.get(uri) ?? 0) + 1)
        const bytes = content.get(uri)
        if (bytes == null) throw Object.assign(new Error(uri), { name: 'ContentNotFoundError' })
        return bytes.subarray(options?.offset ?? 0, (options?.offset ?? 0) + (options?.length ?? bytes.length))
      }
    }
    // room for the code and two models, not three; 16 entries would hold them all
    const adapter = wasmMicroJobExecutor({ store, executor }, { codeCacheBytes: 2_500 })
    const run = async (m: number): Promise<void> => {
      const spec = { codeUri: 'ipfs://code', dataUri: 'ipfs://data', blockSize: 8, requirements: { minVramGb: 0, modelId: `ipfs://m${m}` } }
      const { output } = await adapter.run(task(spec, 0, 1), { signal: AbortSignal.timeout(10_000) })
      // the input: u32 model length, the model, the block
      expect(output.subarray(4, 1_004)).toEqual(model(m))
    }
    for (const m of [1, 2, 3]) await run(m)
    expect([fetches.get('ipfs://m1'), fetches.get('ipfs://m2'), fetches.get('ipfs://m3')]).toEqual([1, 1, 1])
    // m1, the least recently used, was dropped for m3: fetched again; m3 was kept
    await run(1)
    await run(3)
    expect([fetches.get('ipfs://m1'), fetches.get('ipfs://m3'), fetches.get('ipfs://code')]).toEqual([2, 1, 1])
  })
})
