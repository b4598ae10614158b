import { createHash } from 'node:crypto'
import type { JobSpec } from '../protocol/index.js'

/** One MicroJob as an executor sees it. */
export interface MicroJobTask {
  jobId: string
  spec: JobSpec
  macroIndex: number
  index: number
  microId: string
  /** Block range `[start, end)`. */
  start: number
  end: number
}

/** Runs MicroJobs. The WASM executor implements this; tests use {@link testExecutor}. */
export interface MicroJobExecutor {
  /** `timeoutMs`: the wall-clock limit of this run (the processor derives it from the job's estimate). */
  run(task: MicroJobTask, options: { signal: AbortSignal, timeoutMs?: number }): Promise<Uint8Array>
}

/**
 * A deterministic executor for tests and benches: output = sha256(jobId, microId, start, end), after an optional
 * `workMs` of (timer) work.
 */
export function testExecutor (init: { workMs?: number } = {}): MicroJobExecutor {
  return {
    async run (task, { signal }) {
      signal.throwIfAborted()
      if (init.workMs != null && init.workMs > 0) {
        await new Promise<void>((resolve, reject) => {
          const onAbort = (): void => { clearTimeout(timer); reject(signal.reason) }
          // the signal outlives this MicroJob (it is the processor's): remove the listener when the work ends
          const timer = setTimeout(() => { signal.removeEventListener('abort', onAbort); resolve() }, init.workMs)
          signal.addEventListener('abort', onAbort, { once: true })
        })
      }
      return new Uint8Array(createHash('sha256')
        .update(`${task.jobId}/${task.microId}/${task.start}/${task.end}`).digest())
    }
  }
}
