import { raceSignal } from 'race-signal'
import { logger } from '@libp2p/logger'
import { DEFAULT_CODE_CACHE_BYTES, DEFAULT_CODE_CACHE_ENTRIES, DEFAULT_MAX_CODE_BYTES, DEFAULT_MAX_INPUT_BYTES } from './constants.js'
import { InputTooLargeError } from './errors.js'
import { jobModelUri } from '../protocol/index.js'
import type { WasmExecutor } from './executor.js'
import type { MicroJobExecutor, MicroJobTask } from './micro-job-task.js'

const log = logger('jobmesh:executor')

/**
 * Reads a job's content by URI, a byte range of it when asked (the content store's `fetch`). The executor asks with
 * `fromNetwork`: the URIs are a job's, so only what a job may name is read (`ipfs://`, `https://` of public hosts).
 */
export interface ContentReader {
  fetch(uri: string, options: { offset?: number, length?: number, maxBytes?: number, fromNetwork?: boolean, signal?: AbortSignal }): Promise<Uint8Array>
}

export interface WasmMicroJobExecutorComponents {
  /** The job's code and data, e.g. the content store of `@jobmesh/peer/storage`. */
  store: ContentReader
  executor: Pick<WasmExecutor, 'run' | 'execute'>
}

export interface WasmMicroJobExecutorInit {
  /** Largest job code fetched (bytes, default 64 MiB). */
  maxCodeBytes?: number
  /** Largest MicroJob input (bytes, default 256 MiB: the WebAssembly executor's own limit). */
  maxInputBytes?: number
  /** Code modules and models cached by URI (default 16). */
  codeCacheEntries?: number
  /** Bytes of code and models cached, all together (default 512 MiB); the newest entry is kept whatever its size. */
  codeCacheBytes?: number
}

/**
 * A MicroJob's input: its block range of the data, after the job's model when it names one (`ipfs://`): then
 * `u32 model length (little-endian) ‖ model ‖ blocks` (docs/protocol.md, Job code ABI).
 */
export function microJobInput (data: Uint8Array, model?: Uint8Array): Uint8Array {
  if (model == null) return data
  const input = new Uint8Array(4 + model.length + data.length)
  new DataView(input.buffer).setUint32(0, model.length, true)
  input.set(model, 4)
  input.set(data, 4 + model.length)
  return input
}

/** The block range `[start * blockSize, end * blockSize)` of a MicroJob as `{ offset, length }`. */
export function microJobRange (task: Pick<MicroJobTask, 'start' | 'end'> & { spec: { blockSize: number } }): { offset: number, length: number } {
  const offset = task.start * task.spec.blockSize
  return { offset, length: (task.end - task.start) * task.spec.blockSize }
}

/**
 * The one MicroJob runner of a peer, for processors, verifiers and a finalizer's regeneration: the
 * {@link MicroJobExecutor} over the WASM executor: fetches the job's code (cached by URI), reads the
 * MicroJob's block range of the data (clamped to the data's size) and runs the module on it.
 *
 * @example
 * ```ts
 * const store = createContentStore({ helia: node.helia })
 * const processor = createProcessor(components, {
 *   executor: wasmMicroJobExecutor({ store, executor: createWasmExecutor() }),
 *   storeOutput: async (bytes) => store.addOutput(bytes)
 * })
 * ```
 */
export function wasmMicroJobExecutor (components: WasmMicroJobExecutorComponents, init: WasmMicroJobExecutorInit = {}): MicroJobExecutor {
  const maxCodeBytes = init.maxCodeBytes ?? DEFAULT_MAX_CODE_BYTES
  const maxInputBytes = init.maxInputBytes ?? DEFAULT_MAX_INPUT_BYTES
  const cacheEntries = init.codeCacheEntries ?? DEFAULT_CODE_CACHE_ENTRIES
  const cacheBytes = init.codeCacheBytes ?? DEFAULT_CODE_CACHE_BYTES
  const code = new Map<string, Promise<Uint8Array>>()
  /** Sizes of the cached entries that have arrived. */
  const sizes = new Map<string, number>()
  const drop = (uri: string): void => {
    code.delete(uri)
    sizes.delete(uri)
  }
  /** Drops the least recently used entries (never `keep`) while the cache holds more than its bytes or entries. */
  const trim = (keep: string): void => {
    let total = [...sizes.values()].reduce((a, b) => a + b, 0)
    for (const uri of [...code.keys()]) {
      if (total <= cacheBytes && code.size <= cacheEntries) return
      if (uri === keep) continue
      total -= sizes.get(uri) ?? 0
      drop(uri)
    }
  }

  /** Code and models, cached by URI (LRU). */
  const cached = (uri: string, maxBytes: number, signal: AbortSignal): Promise<Uint8Array> => {
    const hit = code.get(uri)
    if (hit != null) {
      // refresh its place in the LRU order
      code.delete(uri)
      code.set(uri, hit)
      return hit
    }
    // not bound to this caller's signal: a shared fetch must not fail for the other callers
    const fetched = components.store.fetch(uri, { maxBytes, fromNetwork: true })
    code.set(uri, fetched)
    fetched.then(bytes => {
      if (code.get(uri) !== fetched) return
      sizes.set(uri, bytes.byteLength)
      trim(uri)
    }, () => { if (code.get(uri) === fetched) drop(uri) })
    trim(uri)
    return raceSignal(fetched, signal)
  }

  const load = async (task: MicroJobTask, signal: AbortSignal): Promise<[Uint8Array, Uint8Array]> => {
    signal.throwIfAborted()
    const { offset, length } = microJobRange(task)
    const modelUri = jobModelUri(task.spec)
    const [code, data, model] = await Promise.all([
      cached(task.spec.codeUri, maxCodeBytes, signal),
      components.store.fetch(task.spec.dataUri, { offset, length, maxBytes: maxInputBytes, fromNetwork: true, signal }),
      modelUri == null ? undefined : cached(modelUri, maxInputBytes, signal)
    ])
    // the model and the blocks each fit the input limit; together they must too, checked before they are joined
    if (model != null && 4 + model.length + data.length > maxInputBytes) {
      throw new InputTooLargeError(`the model (${model.length} bytes) and the MicroJob's blocks (${data.length} bytes) are more than the ${maxInputBytes} bytes of an input`)
    }
    return [code, microJobInput(data, model)]
  }

  return {
    async run (task, { signal, timeoutMs }) {
      const [wasm, input] = await load(task, signal)
      // the job's own output bound holds for every run of it: a processor's, a verifier's, a finalizer's stand-in
      const maxOutputBytes = task.spec.estimate.maxOutputBytes
      const execution = await components.executor.execute(wasm, input, {
        signal, ...(timeoutMs == null ? {} : { timeoutMs }), ...(maxOutputBytes == null ? {} : { maxOutputBytes })
      })
      log.trace('ran %s %d.%d', task.jobId, task.macroIndex, task.index)
      return execution
    }
  }
}
