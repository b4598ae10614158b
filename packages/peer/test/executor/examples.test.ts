import { PNG } from 'pngjs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
// @ts-expect-error: a plain .mjs build script without type declarations
import { generate } from '../../../../examples/scripts/generate.mjs'
import {
  DEFAULT_MANDELBROT_IMAGE, MANDELBROT_BLOCK_SIZE, countWords, decodeMandelbrotTile, decodeWordCounts,
  encodeMandelbrotData, generateText, gradientPalette, loadExampleWasm, mandelbrotPaletteReference, mandelbrotPng,
  mandelbrotReference, mergeWordCounts
} from '../../../../examples/src/index.js'
import type { MandelbrotImage } from '../../../../examples/src/index.js'
import { createWasmExecutor, microJobInput, outputHash, wasmMicroJobExecutor } from '../../src/executor/index.js'
import type { MicroJobTask, WasmExecutor } from '../../src/executor/index.js'

/** The bytes of blocks `[start, end)`: what a MicroJob gets as input. */
function blocks (data: Uint8Array, blockSize: number, start: number, end: number): Uint8Array {
  return data.subarray(start * blockSize, Math.min(end * blockSize, data.length))
}

describe('example jobs in the executor', () => {
  let executor: WasmExecutor
  let mandelbrot: Uint8Array
  let wordcount: Uint8Array

  beforeAll(async () => {
    await generate()
    mandelbrot = await loadExampleWasm('mandelbrot')
    wordcount = await loadExampleWasm('wordcount')
    executor = createWasmExecutor({ concurrency: 2 })
  })

  afterAll(async () => {
    await executor.stop()
  })

  it('answers an execution digest that every fresh run agrees on and that the output does not yield', async () => {
    const image: MandelbrotImage = { width: 32, height: 16, x0: -2, y0: 1, x1: 1, y1: -1, maxIter: 32 }
    const data = encodeMandelbrotData(image, 1)
    const tile = (i: number): Uint8Array => blocks(data, MANDELBROT_BLOCK_SIZE, i, i + 1)
    const other = createWasmExecutor({ concurrency: 1 })
    try {
      const a = await executor.execute(mandelbrot, tile(3))
      const b = await other.execute(mandelbrot, tile(3))
      expect(a.output).toEqual(await executor.run(mandelbrot, tile(3)))
      expect(a.digest).toMatch(/^0x[0-9a-f]{64}$/)
      // another worker, another executor: the memory after a run is a function of the code and the input
      expect(b.digest).toBe(a.digest)
      expect((await executor.execute(mandelbrot, tile(4))).digest).not.toBe(a.digest)
      // neither the output nor its hash is the digest
      expect(a.digest).not.toBe(outputHash(a.output))
      // word counts of "b a" and "a b" are the same output; the runs' memories differ, so do their digests
      const ab = await executor.execute(wordcount, new TextEncoder().encode('a b a '))
      const ba = await executor.execute(wordcount, new TextEncoder().encode('b a a '))
      expect(ab.output).toEqual(ba.output)
      expect(ab.digest).not.toBe(ba.digest)
    } finally {
      await other.stop()
    }
  })

  it('compiles the examples with no import but env.abort', async () => {
    for (const code of [mandelbrot, wordcount, await loadExampleWasm('mandelbrot-palette')]) {
      const module = await WebAssembly.compile(code)
      expect(WebAssembly.Module.imports(module).map(i => `${i.module}.${i.name}`)).toEqual(['env.abort'])
      await expect(executor.prepare(code)).resolves.toMatch(/^0x/)
    }
  })

  it('renders Mandelbrot tiles pixel for pixel like the TypeScript reference and stitches a PNG', async () => {
    const image: MandelbrotImage = { ...DEFAULT_MANDELBROT_IMAGE, width: 160, height: 120, maxIter: 200 }
    const rowsPerBlock = 4
    const data = encodeMandelbrotData(image, rowsPerBlock)
    const blockCount = data.length / MANDELBROT_BLOCK_SIZE
    expect(blockCount).toBe(30)
    const blocksPerMicro = 7 // the last MicroJob gets fewer blocks
    const ranges: Array<[number, number]> = []
    for (let start = 0; start < blockCount; start += blocksPerMicro) {
      ranges.push([start, Math.min(start + blocksPerMicro, blockCount)])
    }
    const tiles = await Promise.all(ranges.map(async ([start, end]) =>
      executor.run(mandelbrot, blocks(data, MANDELBROT_BLOCK_SIZE, start, end))))
    ranges.forEach(([start, end], i) => {
      const input = blocks(data, MANDELBROT_BLOCK_SIZE, start, end)
      expect(tiles[i]).toEqual(mandelbrotReference(input))
      const tile = decodeMandelbrotTile(tiles[i])
      expect([tile.rowStart, tile.rowEnd]).toEqual([start * rowsPerBlock, Math.min(end * rowsPerBlock, image.height)])
    })
    // not a blank image: inside points are black, outside ones are not
    const all = tiles.flatMap(t => [...decodeMandelbrotTile(t).pixels])
    expect(all).toContain(0)
    expect(all.some(p => p > 128)).toBe(true)

    const png = PNG.sync.read(Buffer.from(mandelbrotPng(tiles)))
    expect([png.width, png.height]).toEqual([image.width, image.height])
    const tile0 = decodeMandelbrotTile(tiles[0])
    expect(png.data[(image.width * 2 + 5) * 4]).toBe(tile0.pixels[image.width * 2 + 5])
  })

  it('fails a Mandelbrot input that is not whole blocks with a trap', async () => {
    await expect(executor.run(mandelbrot, new Uint8Array(10))).rejects.toMatchObject({ name: 'WasmTrapError' })
  })

  it('counts words like the TypeScript reference, and merged tables equal the whole text\'s table', async () => {
    const blockSize = 16 * 1024
    const text = generateText({ bytes: 2 * 1024 * 1024, blockSize, seed: 7 })
    expect(text.length).toBe(2 * 1024 * 1024)
    expect(generateText({ bytes: 64 * 1024, blockSize, seed: 7 })).toEqual(text.subarray(0, 64 * 1024))
    const blockCount = text.length / blockSize
    const blocksPerMicro = 40
    const ranges: Array<[number, number]> = []
    for (let start = 0; start < blockCount; start += blocksPerMicro) {
      ranges.push([start, Math.min(start + blocksPerMicro, blockCount)])
    }
    const tables = await Promise.all(ranges.map(async ([start, end]) =>
      executor.run(wordcount, blocks(text, blockSize, start, end))))
    expect(tables[0]).toEqual(countWords(blocks(text, blockSize, ranges[0][0], ranges[0][1])))
    const merged = mergeWordCounts(tables)
    const whole = countWords(text)
    expect(merged).toEqual(whole)
    expect(outputHash(merged)).toBe(outputHash(whole))
    const entries = decodeWordCounts(merged)
    expect(entries.length).toBeGreaterThan(1000)
    expect(entries.every(e => /^[a-z0-9]+$/.test(e.word))).toBe(true)
  })

  it('counts an edge-case text like the reference', async () => {
    const long = 'x'.repeat(256)
    const cases = ['', '   ', 'Hello, hello HELLO! héllo 42 a1b2', `${long} short ${long.slice(1)}`, 'tail']
    for (const text of cases) {
      const bytes = new TextEncoder().encode(text)
      expect(await executor.run(wordcount, bytes)).toEqual(countWords(bytes))
    }
  })
})

describe('the MicroJob executor over the example jobs', () => {
  it('runs the blocks of a MicroJob it reads through its content reader', async () => {
    const executor = createWasmExecutor({ concurrency: 1 })
    try {
      await generate()
      const code = await loadExampleWasm('wordcount')
      const blockSize = 1024
      const text = generateText({ bytes: 8 * blockSize, blockSize, seed: 3 })
      const content = new Map([['file:///wordcount.wasm', code], ['file:///words.txt', text]])
      const reads: Array<{ uri: string, offset?: number, length?: number }> = []
      const runner = wasmMicroJobExecutor({
        executor,
        store: {
          fetch: async (uri, { offset, length }) => {
            reads.push({ uri, offset, length })
            const bytes = content.get(uri) ?? new Uint8Array()
            return offset === undefined ? bytes : bytes.subarray(offset, offset + (length ?? bytes.length))
          }
        }
      })
      const spec = { codeUri: 'file:///wordcount.wasm', dataUri: 'file:///words.txt', blockSize, estimate: { secondsPerMicroJob: 1 } } as unknown as MicroJobTask['spec']
      const task: MicroJobTask = { jobId: '0x' + '01'.repeat(32), spec, macroIndex: 0, index: 1, microId: '0x' + '02'.repeat(32), start: 2, end: 5 }
      const { output } = await runner.run(task, { signal: new AbortController().signal })
      expect(output).toEqual(countWords(blocks(text, blockSize, 2, 5)))
      // the data is read as the MicroJob's block range only
      expect(reads).toContainEqual({ uri: 'file:///words.txt', offset: 2 * blockSize, length: 3 * blockSize })
    } finally {
      await executor.stop()
    }
  })

  it('gives a job naming an ipfs:// model its model before its blocks, and the palette job colours by it', async () => {
    const executor = createWasmExecutor({ concurrency: 1 })
    try {
      await generate()
      const code = await loadExampleWasm('mandelbrot-palette')
      const image: MandelbrotImage = { width: 24, height: 8, x0: -2, y0: 1, x1: 1, y1: -1, maxIter: 40 }
      const data = encodeMandelbrotData(image, 1)
      const palette = gradientPalette()
      const model = 'ipfs://bafkreipalette'
      const content = new Map([['file:///palette.wasm', code], ['file:///bands', data], [model, palette]])
      const runner = wasmMicroJobExecutor({
        executor,
        store: {
          fetch: async (uri, { offset, length }) => {
            const bytes = content.get(uri) ?? new Uint8Array()
            return offset === undefined ? bytes : bytes.subarray(offset, offset + (length ?? bytes.length))
          }
        }
      })
      const spec = {
        codeUri: 'file:///palette.wasm', dataUri: 'file:///bands', blockSize: MANDELBROT_BLOCK_SIZE, requirements: { minVramGb: 0, modelId: model },
        estimate: { secondsPerMicroJob: 1 }
      } as unknown as MicroJobTask['spec']
      const task: MicroJobTask = { jobId: '0x' + '01'.repeat(32), spec, macroIndex: 0, index: 1, microId: '0x' + '02'.repeat(32), start: 2, end: 4 }
      const input = microJobInput(blocks(data, MANDELBROT_BLOCK_SIZE, 2, 4), palette)
      expect(input.subarray(0, 4)).toEqual(new Uint8Array([0, 3, 0, 0]))
      const { output } = await runner.run(task, { signal: new AbortController().signal })
      expect(output).toEqual(mandelbrotPaletteReference(input))
      // the colours are the palette's: a pixel of gray g is palette[g]
      const gray = decodeMandelbrotTile(mandelbrotReference(blocks(data, MANDELBROT_BLOCK_SIZE, 2, 4)))
      expect(output.subarray(16 + 5 * 3, 16 + 6 * 3)).toEqual(palette.subarray(gray.pixels[5] * 3, gray.pixels[5] * 3 + 3))
      // a model that is a name, not content, is not fetched: the code gets its blocks only (and this one traps)
      const named = { ...task, spec: { ...spec, requirements: { minVramGb: 0, modelId: 'sdxl' } } } as MicroJobTask
      await expect(runner.run(named, { signal: new AbortController().signal })).rejects.toMatchObject({ name: 'WasmTrapError' })
    } finally {
      await executor.stop()
    }
  })
})
