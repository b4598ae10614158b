import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
// @ts-expect-error: a plain .mjs build script without type declarations
import { generate } from '../../../../examples/scripts/generate.mjs'
import { MANDELBROT_BLOCK_SIZE, gradientPalette, loadExampleWasm, mandelbrotJobInput } from '../../../../examples/src/index.js'
import type { MandelbrotImage } from '../../../../examples/src/index.js'
import { createWasmExecutor, microJobInput } from '../../src/executor/index.js'
import type { WasmExecutor } from '../../src/executor/index.js'
import { EXECUTION_DIGEST_DOMAIN } from '../../src/executor/worker-source.js'
import { isWorkTag, workTag } from '../../src/protocol/index.js'

// The demo's job (examples/src/demo.ts): 768 x 512, 4 MacroJobs of 8 MicroJobs, 16 rows each
const IMAGE: MandelbrotImage = { width: 768, height: 512, x0: -2.2, y0: 1.2, x1: 0.9, y1: -1.2, maxIter: 200 }
const COPIER = '12D3KooWCopierCopierCopierCopierCopierCopierCopierAA'

interface Instance { memory: WebAssembly.Memory, alloc: (len: number) => number, process: (ptr: number, len: number) => number }

async function instantiate (code: Uint8Array): Promise<Instance> {
  const module = await WebAssembly.compile(code)
  const instance = await WebAssembly.instantiate(module, { env: { abort: () => { throw new Error('abort') } } })
  return instance.exports as unknown as Instance
}

/** The execution digest of a memory (worker-source.ts). */
function digestOf (memory: Uint8Array): string {
  return '0x' + createHash('sha256').update(EXECUTION_DIGEST_DOMAIN).update(memory).digest('hex')
}

/** `bytes` behind their u32 length, as `process` returns an output. */
function withLength (bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + bytes.length)
  new DataView(out.buffer).setUint32(0, bytes.length, true)
  out.set(bytes, 4)
  return out
}

/**
 * The copier's attack: a fresh instance, the module's own cheap `alloc` for each piece in the order a run allocates
 * them, the public bytes written in, `process` never called. Answers the memory it hashes and its digest.
 */
async function copy (code: Uint8Array, pieces: Uint8Array[]): Promise<{ memory: Uint8Array, digest: string }> {
  const { memory, alloc } = await instantiate(code)
  for (const bytes of pieces) {
    const ptr = alloc(bytes.length) >>> 0
    new Uint8Array(memory.buffer).set(bytes, ptr)
  }
  const bytes = new Uint8Array(memory.buffer.slice(0))
  return { memory: bytes, digest: digestOf(bytes) }
}

/** An honest run in this thread: the memory the executor hashes, and where the output ends in it. */
async function honestMemory (code: Uint8Array, input: Uint8Array): Promise<{ memory: Uint8Array, outputEnd: number }> {
  const { memory, alloc, process } = await instantiate(code)
  const ptr = alloc(input.length) >>> 0
  new Uint8Array(memory.buffer).set(input, ptr)
  const out = process(ptr, input.length) >>> 0
  const outputEnd = out + 4 + new DataView(memory.buffer).getUint32(out, true)
  return { memory: new Uint8Array(memory.buffer.slice(0)), outputEnd }
}

describe('the example jobs\' execution digests cannot be rebuilt from their public input and output', () => {
  let executor: WasmExecutor
  let inputs: Uint8Array[]

  beforeAll(async () => {
    await generate()
    executor = createWasmExecutor({ concurrency: 1 })
    const job = mandelbrotJobInput({ image: IMAGE, macroJobs: 4, microJobsPerMacro: 8, price: 1n })
    const per = job.slicing.blocksPerMicro * MANDELBROT_BLOCK_SIZE
    const data = job.data as Uint8Array
    inputs = Array.from({ length: data.length / per }, (_, i) => data.subarray(i * per, (i + 1) * per))
    expect(inputs).toHaveLength(32)
  })

  afterAll(async () => {
    await executor.stop()
  })

  it('Mandelbrot: a copier that allocates and writes the input and the output gets neither the digest nor a work tag', async () => {
    const code = await loadExampleWasm('mandelbrot')
    for (const [i, input] of inputs.entries()) {
      const honest = await executor.execute(code, input)
      const forged = await copy(code, [input, withLength(honest.output)])
      // the attack is exact: the copier's memory is the honest run's up to the end of the output ...
      const run = await honestMemory(code, input)
      expect(digestOf(run.memory), `MicroJob ${i}`).toBe(honest.digest)
      expect(forged.memory.subarray(0, run.outputEnd), `MicroJob ${i}`).toEqual(run.memory.subarray(0, run.outputEnd))
      // ... and what it lacks, the final iterates past the output, takes the run
      expect(forged.digest, `MicroJob ${i}`).not.toBe(honest.digest)
      expect(isWorkTag(workTag(forged.digest, COPIER), honest.digest!, COPIER), `MicroJob ${i}`).toBe(false)
    }
  })

  it('Mandelbrot with a palette: a copier that also gets the gray tile back through the palette gets no digest', async () => {
    const code = await loadExampleWasm('mandelbrot-palette')
    const palette = gradientPalette()
    const gray = new Map<string, number>()
    for (let g = 0; g < 256; g++) gray.set(palette.subarray(g * 3, g * 3 + 3).join(), g)
    expect(gray.size).toBe(256) // every colour names one gray: the gray tile follows from the output
    for (const i of [0, 13, 31]) {
      const input = microJobInput(inputs[i], palette)
      const honest = await executor.execute(code, input)
      const pixels = (honest.output.length - 16) / 3
      const tile = new Uint8Array(16 + pixels)
      new DataView(tile.buffer).setUint32(0, 0x314f424d, true) // "MBO1", then width, rowStart, rowEnd as the output's
      tile.set(honest.output.subarray(4, 16), 4)
      for (let p = 0; p < pixels; p++) tile[16 + p] = gray.get(honest.output.subarray(16 + p * 3, 19 + p * 3).join())!
      const forged = await copy(code, [input, withLength(tile), withLength(honest.output)])
      expect(forged.digest, `MicroJob ${i}`).not.toBe(honest.digest)
      expect(isWorkTag(workTag(forged.digest, COPIER), honest.digest!, COPIER), `MicroJob ${i}`).toBe(false)
    }
  })
})
