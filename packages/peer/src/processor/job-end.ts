import { logger } from '@libp2p/logger'
import { DEFAULT_COMPLETION_WINDOW_MS } from './constants.js'
import type { JobContext } from './job-context.js'
import type { ProcessorEvents } from './types.js'

const log = logger('jobmesh:processor')

/** What ending a job needs of the processor. */
export interface JobEndHost {
  /** Jobs this peer is done with (complete, failed, or given up). */
  readonly completed: Set<string>
  /** Jobs given up (poison isolation). */
  readonly failed: Set<string>
  /** Jobs given up here that the other peers completed (`jobmesh status` lists them complete). */
  readonly doneElsewhere: Set<string>
  clock(): number
  onJobComplete?(jobId: string): void | Promise<void>
  dispatch<K extends 'job:complete' | 'job:failed'>(type: K, detail: ProcessorEvents[K]): void
}

/**
 * Poison isolation: the job's MicroJobs fail everywhere (or too often here). This peer leaves its rooms and never
 * chooses it again; the failures stay in the CRDT for every other reader (the SDK reports the job failed).
 */
export function giveUp (host: JobEndHost, ctx: JobContext, detail: { attempts: number, peers: number, reasons: string[], details?: string[], earlier?: boolean }): void {
  if (ctx.finalized) return
  ctx.finalized = true
  const jobId = ctx.job.jobId
  host.completed.add(jobId)
  host.failed.add(jobId)
  log('job %s given up: %d failed attempts by %d peers (%s)', jobId, detail.attempts, detail.peers, (detail.details ?? detail.reasons).join('; '))
  for (const room of ctx.rooms.values()) room.close()
  ctx.wake?.()
  host.dispatch('job:failed', { jobId, ...detail })
}

/**
 * Every MicroJob of the job has a result: this peer leaves its rooms; it finalizes (`onJobComplete`) when its own
 * write completed the job, its own result finished the last room to finish (the other MacroJobs' results may reach it
 * later, from their docs), or it wrote a result within the completion window (finalization is idempotent).
 */
export async function jobComplete (host: JobEndHost, ctx: JobContext, local: boolean): Promise<void> {
  if (ctx.finalized) {
    // given up here (its runs failed on this peer) and completed by the others: the job did not fail
    if (host.failed.has(ctx.job.jobId) && !host.doneElsewhere.has(ctx.job.jobId)) {
      host.doneElsewhere.add(ctx.job.jobId)
      log('job %s, given up here, was completed by other peers', ctx.job.jobId)
    }
    return
  }
  ctx.finalized = true
  host.completed.add(ctx.job.jobId)
  const finalizer = local || ctx.finishedLast === true || host.clock() - ctx.lastLocalResult <= DEFAULT_COMPLETION_WINDOW_MS
  log('job %s complete (finalizer %s)', ctx.job.jobId, finalizer)
  host.dispatch('job:complete', { jobId: ctx.job.jobId, finalizer })
  for (const room of ctx.rooms.values()) room.close()
  ctx.wake?.()
  if (finalizer && host.onJobComplete != null) {
    try {
      await host.onJobComplete(ctx.job.jobId)
    } catch (err) {
      log.error('onJobComplete(%s): %e', ctx.job.jobId, err)
    }
  }
}

/**
 * The inverse of {@link jobComplete} for a job that ended here on summaries its MacroJobs' docs do not bear out
 * (summary-check.ts): it is worked on again. Its rooms were closed when it ended; the room choice finds or claims
 * them again. Returns false for a job given up (poison isolation), which stays ended.
 */
export function reopenJob (host: JobEndHost, ctx: JobContext): boolean {
  if (host.failed.has(ctx.job.jobId)) return false
  ctx.finalized = false
  ctx.finishedLast = undefined
  ctx.ownFinishAt = undefined
  ctx.rooms.clear()
  host.completed.delete(ctx.job.jobId)
  return true
}
