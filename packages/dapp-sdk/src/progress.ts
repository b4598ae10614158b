import { JobProgress, RESULTS_MAP, jobDocName, recordVerifier } from '@jobmesh/peer'
import { anySignal } from './abort.js'
import { AbortError, DeadlinePassedError, TimeoutError } from './errors.js'
import { loadEscrowJob } from './job-info.js'
import type { ClientContext } from './context.js'
import type * as Y from 'yjs'

/** How many MicroJobs of a job have a result. */
export interface ProgressUpdate {
  /** MicroJobs with at least one valid (signed, owner-checked) result. */
  done: number
  total: number
}

export interface ProgressOptions {
  signal?: AbortSignal
  /** Give up after this many ms (TimeoutError); default: at the job's deadline (DeadlinePassedError). */
  timeoutMs?: number
}

/** Opens a job doc with the client's doc timeout. */
export async function openJobDoc (ctx: ClientContext, jobId: string, signal?: AbortSignal): Promise<Y.Doc> {
  return ctx.docs.open(jobDocName(jobId.toLowerCase()), { signal: anySignal([signal, ctx.stopped], ctx.settings.docTimeoutMs) })
}

/**
 * Yields `{ done, total }` now and on every MicroJob that gets its first valid result; returns after the update
 * with `done === total`.
 *
 * @throws JobNotFoundError, ChainError, DeadlinePassedError, TimeoutError, AbortError
 */
export async function * watchProgress (ctx: ClientContext, jobId: string, options: ProgressOptions = {}): AsyncGenerator<ProgressUpdate, void, undefined> {
  const id = jobId.toLowerCase()
  const job = await loadEscrowJob(ctx, id, options.signal)
  const total = job.macroJobs * job.microJobsPerMacro
  const doc = await openJobDoc(ctx, id, options.signal)
  const tracker = new JobProgress({ verifier: recordVerifier() }, doc.getMap<Uint8Array>(RESULTS_MAP), id, total)
  const byDeadline = options.timeoutMs === undefined
  const waitMs = options.timeoutMs ?? Math.max(0, job.deadline * 1000 - Date.now())
  const signal = anySignal([options.signal, ctx.stopped])
  let wake: (() => void) | undefined
  const onDone = (): void => { wake?.() }
  const timer = setTimeout(onDone, waitMs)
  signal.addEventListener('abort', onDone)
  tracker.addEventListener('microjob:done', onDone)
  const started = Date.now()
  try {
    let reported = -1
    while (true) {
      const done = Math.min(tracker.done.size, total)
      if (done !== reported) {
        reported = done
        yield { done, total }
        if (done >= total) return
      }
      if (signal.aborted) throw new AbortError(`progress of ${id} aborted`, { cause: signal.reason })
      if (Date.now() - started >= waitMs) {
        if (byDeadline) throw new DeadlinePassedError(`job ${id} passed its deadline with ${done} of ${total} MicroJobs done`)
        throw new TimeoutError(`progress of ${id}: ${done} of ${total} MicroJobs done after ${waitMs} ms`)
      }
      await new Promise<void>((resolve) => { wake = resolve })
      wake = undefined
    }
  } finally {
    clearTimeout(timer)
    signal.removeEventListener('abort', onDone)
    tracker.removeEventListener('microjob:done', onDone)
    tracker.stop()
  }
}
