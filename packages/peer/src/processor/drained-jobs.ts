/**
 * Jobs drained here: jobs in which this peer lately found nothing open for it (their last items run on other peers,
 * or wait for a failover). The job choice takes every other job first (job-choice.ts), so a peer leaves a job's tail
 * for another job's open work instead of waiting for the tail to end; a job drained here is still chosen when nothing
 * else is, least recently drained first.
 */
export interface DrainedMark {
  /** When this peer last gave up waiting for open items in the job (ms, the processor's clock). */
  at: number
  /** The job's round then: a new round (docs/settlement.md, rounds) is open work again. */
  round: number
}

/** Whether `job` is drained here in its current round. */
export function isDrained (marks: ReadonlyMap<string, DrainedMark>, job: { jobId: string, round: number }): boolean {
  return marks.get(job.jobId)?.round === job.round
}

/** The candidates in choice order: the jobs not drained here as one group, then each drained job, least recently drained first. */
export function undrainedFirst<C extends { job: { jobId: string, round: number } }> (candidates: C[], marks: ReadonlyMap<string, DrainedMark>): C[][] {
  const open = candidates.filter(c => !isDrained(marks, c.job))
  const drained = candidates.filter(c => isDrained(marks, c.job))
    .sort((a, b) => (marks.get(a.job.jobId)?.at ?? 0) - (marks.get(b.job.jobId)?.at ?? 0))
  return [open, ...drained.map(c => [c])].filter(group => group.length > 0)
}
