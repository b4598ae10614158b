import type { WasmExecutor } from './executor.js'

/** What a MicroJob runner needs of a MicroJob (the processor's `MicroJobTask` has these fields). */
export interface WasmMicroJob {
  spec: { codeUri: string, dataUri: string, blockSize: number }
  /** Block range `[start, end)`. */
  start: number
  end: number
}

export interface WasmMicroJobComponents {
  executor: WasmExecutor
  /** Loads the job's code (a WebAssembly module) from its URI. */
  loadCode(uri: string, options: { signal: AbortSignal }): Promise<Uint8Array>
  /**
   * Loads `length` bytes of the job's data from `offset` (fewer at the end of the data). The MicroJob's input is
   * the bytes of its blocks: `offset = start * blockSize`, `length = (end - start) * blockSize`.
   */
  loadData(uri: string, options: { offset: number, length: number, signal: AbortSignal }): Promise<Uint8Array>
}

export interface WasmMicroJobRunner {
  run(task: WasmMicroJob, options: { signal: AbortSignal }): Promise<Uint8Array>
}

/**
 * Runs MicroJobs with the WebAssembly executor: loads the code and the bytes of the MicroJob's blocks and runs
 * the code on them. The result fits the processor's `MicroJobExecutor` interface.
 */
export function createWasmMicroJobRunner (components: WasmMicroJobComponents): WasmMicroJobRunner {
  return {
    async run (task, { signal }) {
      const { codeUri, dataUri, blockSize } = task.spec
      const [code, input] = await Promise.all([
        components.loadCode(codeUri, { signal }),
        components.loadData(dataUri, {
          offset: task.start * blockSize,
          length: (task.end - task.start) * blockSize,
          signal
        })
      ])
      return components.executor.run(code, input, { signal })
    }
  }
}

/** The input of the MicroJob covering blocks `[start, end)` of `data`: a view, not a copy. */
export function blockRange (data: Uint8Array, blockSize: number, start: number, end: number): Uint8Array {
  return data.subarray(Math.min(start * blockSize, data.length), Math.min(end * blockSize, data.length))
}
