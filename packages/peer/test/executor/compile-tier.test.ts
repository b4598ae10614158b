import { afterEach, describe, expect, it } from 'vitest'
import { createWasmExecutor } from '../../src/executor/index.js'
import type { WasmExecutor } from '../../src/executor/index.js'
import { buildModule, fixedAlloc, i32, op } from './wasm-builder.js'

const I32_LOAD = [0x28, 2, 0]
const I32_ADD = 0x6a
const IF_I32 = [0x04, 0x7f]
const ELSE = 0x05

/**
 * `process` reads a depth n (u32 at the input) and calls rec(n) = n == 0 ? 0 : rec(n - 1) + 1; the output is empty.
 * `variant` changes only the memory's maximum, so each variant is new code to the engine (V8 shares the compiled code
 * of identical bytes within a process, tiered-up functions included).
 */
function recursionModule (variant: number): Uint8Array {
  return buildModule({
    memory: { min: 2, max: 2 + variant, export: 'memory' },
    funcs: [
      fixedAlloc,
      {
        params: 2,
        results: 1,
        export: 'process',
        body: [...i32(0), ...i32(0), op.i32Store, 2, 0, op.localGet, 0, ...I32_LOAD, op.call, 2, op.drop, ...i32(0)]
      },
      {
        params: 1,
        results: 1,
        body: [op.localGet, 0, ...IF_I32, op.localGet, 0, ...i32(1), op.i32Sub, op.call, 2, ...i32(1), I32_ADD, ELSE,
          ...i32(0), op.end]
      }
    ]
  })
}

function depthInput (n: number): Uint8Array {
  const input = new Uint8Array(4)
  new DataView(input.buffer).setUint32(0, n, true)
  return input
}

async function reaches (executor: WasmExecutor, code: Uint8Array, depth: number): Promise<boolean> {
  try {
    await executor.run(code, depthInput(depth))
    return true
  } catch (err) {
    if ((err as Error).name !== 'WasmTrapError') throw err
    return false
  }
}

/** The deepest recursion that runs, to within 1 %, by bisection. */
async function deepest (executor: WasmExecutor, code: Uint8Array): Promise<number> {
  let ok = 1_000
  let fails = 4_000_000
  expect(await reaches(executor, code, ok)).toBe(true)
  expect(await reaches(executor, code, fails)).toBe(false)
  while (fails - ok > ok / 100) {
    const mid = Math.floor((ok + fails) / 2)
    if (await reaches(executor, code, mid)) ok = mid
    else fails = mid
  }
  return ok
}

describe('one compiler tier', () => {
  const executors: WasmExecutor[] = []
  afterEach(async () => {
    await Promise.all(executors.splice(0).map(async e => { await e.stop() }))
  })

  it('a cold run recurses as deep as a warm one: what a warm processor ran, a cold verifier runs too', async () => {
    const processor = createWasmExecutor({ concurrency: 1 })
    const verifier = createWasmExecutor({ concurrency: 1 })
    executors.push(processor, verifier)
    const processorCode = recursionModule(1)
    // the processor's module is hot: many runs before the one that goes deep
    for (let i = 0; i < 20; i++) expect(await reaches(processor, processorCode, 10_000)).toBe(true)
    const warmDepth = await deepest(processor, processorCode)
    // the verifier's first run of the same code (new to the engine), 2 % below what the warm run reached (with
    // V8's baseline tier a first run trapped about a third shallower)
    expect(await reaches(verifier, recursionModule(2), Math.floor(warmDepth * 0.98))).toBe(true)
    // and its own bisection, cold from the first probe, finds the same depth to within the bisection's 1 %
    const coldDepth = await deepest(verifier, recursionModule(3))
    expect(Math.abs(coldDepth - warmDepth)).toBeLessThanOrEqual(warmDepth / 50)
  })
})
