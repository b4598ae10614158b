import { createHash } from 'node:crypto'
import type { MicroJobExecution, MicroJobExecutor, MicroJobRunOptions, MicroJobTask } from '@jobmesh/peer/executor'

/**
 * A deterministic executor for tests and benches: output = sha256(jobId, microId, start, end), after an optional
 * `workMs` of (timer) work; its execution digest is sha256 of `digest/` and the same.
 */
export function testExecutor (init: { workMs?: number } = {}): MicroJobExecutor {
  const run = async (task: MicroJobTask, { signal }: MicroJobRunOptions): Promise<MicroJobExecution> => {
    signal.throwIfAborted()
    if (init.workMs != null && init.workMs > 0) {
      await new Promise<void>((resolve, reject) => {
        const onAbort = (): void => { clearTimeout(timer); reject(signal.reason) }
        // the signal outlives this MicroJob (it is the processor's): remove the listener when the work ends
        const timer = setTimeout(() => { signal.removeEventListener('abort', onAbort); resolve() }, init.workMs)
        signal.addEventListener('abort', onAbort, { once: true })
      })
    }
    const output = new Uint8Array(createHash('sha256').update(`${task.jobId}/${task.microId}/${task.start}/${task.end}`).digest())
    const digest = createHash('sha256').update(`digest/${task.jobId}/${task.microId}/${task.start}/${task.end}`).digest('hex')
    return { output, digest: '0x' + digest }
  }
  return { run }
}
