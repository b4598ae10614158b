import { logger } from '@libp2p/logger'
import { jobComplete } from './job-end.js'
import { finishedHere, macroDone } from './rooms.js'
import type { JobContext } from './job-context.js'
import type { JobEndHost } from './job-end.js'

const log = logger('jobmesh:processor')

/** What ending a job on its summaries, and checking them later, needs of the processor. */
export interface SummaryCheckHost {
  readonly endHost: JobEndHost
  /** How long after a job ended here on summaries their MacroJobs' docs are read (ms). */
  readonly summaryCheckMs: number
  /** Whether the job is settled on chain for good: its submitter held every result, nothing is left to check. */
  settled?(jobId: string): boolean
  /** The job is not finished after all: this peer works on it again. */
  reopen(ctx: JobContext): void
  /** Aborted when the processor stops. */
  signal(): AbortSignal
}

/**
 * Ends the job here once every MacroJob is finished by its results here or, for one whose doc this peer does not hold,
 * by its summary (`JobProgress.hinted`): the summarized MacroJobs' docs are not read now (each peer pulling every
 * finished MacroJob's doc was a third of a job's CPU at 16 processes, docs/coordination.md, Twenty-third round), but
 * {@link checkSummariesLater}. A job this peer holds every result of ends on them (`JobProgress` `complete`).
 */
export function endOnSummaries (host: SummaryCheckHost, ctx: JobContext): void {
  if (ctx.progress.complete || !finishedHere(ctx)) return
  const ended = ctx.finalized
  // a job that ended here already is only noted (given up here, finished by the others): nothing to check
  void jobComplete(host.endHost, ctx, false)
  if (!ended) checkSummariesLater(host, ctx)
}

/**
 * After `summaryCheckMs`, unless the job is settled on chain by then, reads the docs of the MacroJobs that ended the
 * job here on their summaries alone: a summary is one peer's word, and a forged one must not leave a MacroJob
 * undone for good (its room's members may all be gone). One the doc does not bear out reopens the job here.
 */
export function checkSummariesLater (host: SummaryCheckHost, ctx: JobContext): void {
  const signal = host.signal()
  if (ctx.summaryCheck != null || signal.aborted) return
  const timer = setTimeout(() => {
    signal.removeEventListener('abort', cancel)
    ctx.summaryCheck = undefined
    checkSummaries(host, ctx).catch((err: Error) => { log.error('summaries of %s not checked: %e', ctx.job.jobId, err) })
  }, host.summaryCheckMs)
  const cancel = (): void => { clearTimeout(timer) }
  signal.addEventListener('abort', cancel, { once: true })
  ctx.summaryCheck = timer
}

/** Reads every summarized MacroJob doc this peer does not hold, and reopens the job if one is short of its results. */
export async function checkSummaries (host: SummaryCheckHost, ctx: JobContext): Promise<void> {
  if (host.settled?.(ctx.job.jobId) === true) return
  const hinted = ctx.slicing.macroJobs.map((_, m) => m).filter(m => ctx.progress.hinted(m))
  await Promise.all(hinted.map(async m => {
    await ctx.readMacro(m).catch((err: Error) => { log('doc of MacroJob %d of %s not read: %s', m, ctx.job.jobId, err.message) })
  }))
  if (host.signal().aborted) return
  const unread = (m: number): boolean => !ctx.progress.hinted(m) && !macroDone(ctx, m)
  // a read takes one peer's doc (its summarizer's first): one short of results is exchanged with every peer before
  // it counts as not finished
  await Promise.all(hinted.filter(unread).map(async m => { await ctx.resyncMacro(m) }))
  if (host.signal().aborted) return
  const short = hinted.filter(unread)
  if (short.length > 0) {
    log('job %s: the docs of MacroJobs %s do not bear out their summaries: working on it again', ctx.job.jobId, short.join(', '))
    host.reopen(ctx)
  } else if (hinted.some(m => ctx.progress.hinted(m))) {
    // a read that did not finish (aborted): the next check reads it
    checkSummariesLater(host, ctx)
  }
}
