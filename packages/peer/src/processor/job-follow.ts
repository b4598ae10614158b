import { jobComplete } from './job-end.js'
import { jobFailedInCrdt, recallOwnFailures } from './poison.js'
import { checkFinishedLast, noteOwnResult, followSummaries } from './rooms.js'
import { endOnSummaries } from './summary-check.js'
import type { JobContext } from './job-context.js'
import type { JobEndHost } from './job-end.js'
import type { PoisonHost } from './poison.js'
import type { SummaryCheckHost } from './summary-check.js'

/** What following a job's CRDT state needs of the processor. */
export interface JobFollowHost {
  readonly endHost: JobEndHost
  readonly poisonHost: PoisonHost
  readonly summaryHost: SummaryCheckHost
  clock(): number
}

/**
 * Follows a job context's progress and failures: completion ends the job (job-end.ts), and so does every MacroJob
 * finished here or summarized (summary-check.ts); this peer's own results and the MacroJob summaries decide who
 * finalizes (rooms.ts), the failed state is checked (poison.ts); each wakes the loop. A job already complete, finished
 * on its summaries or failed when its context opens ends at once, as does one this peer gave up before a restart
 * (its own failure records in the CRDT, poison.ts).
 */
export function followJob (host: JobFollowHost, ctx: JobContext): void {
  const { progress, failures } = ctx
  progress.addEventListener('complete', (evt) => { void jobComplete(host.endHost, ctx, evt.detail.local) })
  progress.addEventListener('microjob:done', (evt) => {
    if (evt.detail.local) noteOwnResult(ctx, evt.detail.key, host.clock())
    endOnSummaries(host.summaryHost, ctx)
    ctx.wake?.()
  })
  progress.addEventListener('summary', () => {
    checkFinishedLast(ctx, host.clock())
    followSummaries(ctx)
    endOnSummaries(host.summaryHost, ctx)
    ctx.wake?.()
  })
  failures.addEventListener('failed', () => { jobFailedInCrdt(host.poisonHost, ctx) })
  followSummaries(ctx)
  if (progress.complete) void jobComplete(host.endHost, ctx, false)
  // given up here before a restart: still noted complete if the others' summaries finished it (endOnSummaries)
  else if (recallOwnFailures(host.poisonHost, ctx)) endOnSummaries(host.summaryHost, ctx)
  else if (failures.failed) jobFailedInCrdt(host.poisonHost, ctx)
  else endOnSummaries(host.summaryHost, ctx)
}
