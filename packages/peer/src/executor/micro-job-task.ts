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

/** A MicroJob's output and its execution digest (what only a node that ran it knows; docs/settlement.md). */
export interface MicroJobExecution {
  output: Uint8Array
  /** 0x hex. */
  digest: string
}

export interface MicroJobRunOptions {
  signal: AbortSignal
  /** The wall-clock limit of this run (the processor derives it from the job's estimate). */
  timeoutMs?: number
}

/**
 * Runs MicroJobs, for processors, verifiers and a finalizer's re-runs alike: the output and the execution digest (a
 * processor's work tag, a verifier's vote). {@link wasmMicroJobExecutor} implements it over the WebAssembly executor.
 */
export interface MicroJobExecutor {
  run(task: MicroJobTask, options: MicroJobRunOptions): Promise<MicroJobExecution>
}
