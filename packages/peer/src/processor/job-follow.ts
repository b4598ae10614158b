import { jobComplete } from './job-end.js'
import { jobFailedInCrdt } from './poison.js'
import { checkFinishedLast, noteOwnResult, openSummarized } from './rooms.js'
import type { JobContext } from './job-context.js'
import type { JobEndHost } from './job-end.js'
import type { PoisonHost } from './poison.js'

/** What following a job's CRDT state needs of the processor. */
export interface JobFollowHost {
  readonly endHost: JobEndHost
  readonly poisonHost: PoisonHost
  clock(): number
}

/**
 * Follows a job context's progress and failures: completion ends the job (job-end.ts), this peer's own results and the
 * MacroJob summaries decide who finalizes and which MacroJob docs to open (rooms.ts), the failed state is checked
 * (poison.ts); each wakes the loop. A job already complete or failed when its context opens ends at once.
 */
export function followJob (host: JobFollowHost, ctx: JobContext): void {
  const { progress, failures } = ctx
  progress.addEventListener('complete', (evt) => { void jobComplete(host.endHost, ctx, evt.detail.local) })
  progress.addEventListener('microjob:done', (evt) => {
    if (evt.detail.local) noteOwnResult(ctx, evt.detail.key, host.clock())
    ctx.wake?.()
  })
  progress.addEventListener('summary', () => {
    checkFinishedLast(ctx, host.clock())
    openSummarized(ctx)
    ctx.wake?.()
  })
  failures.addEventListener('failed', () => { jobFailedInCrdt(host.poisonHost, ctx) })
  openSummarized(ctx)
  if (progress.complete) void jobComplete(host.endHost, ctx, false)
  else if (failures.failed) jobFailedInCrdt(host.poisonHost, ctx)
}
