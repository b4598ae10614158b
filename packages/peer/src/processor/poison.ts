import { logger } from '@libp2p/logger'
import { DEFAULT_MAX_RUN_TIMEOUT_MS, DEFAULT_MIN_RUN_TIMEOUT_MS, RUN_TIMEOUT_FACTOR } from './constants.js'
import { giveUp } from './job-end.js'
import type { JobContext } from './job-context.js'
import type { JobEndHost } from './job-end.js'
import type { LockedItem } from '../coord/index.js'
import type { JobSpec } from '../protocol/index.js'

const log = logger('jobmesh:processor')

/** What a failed MicroJob uses of its processor. */
export interface PoisonHost {
  /** jobId -> when a MicroJob of it last failed here (such jobs come last in the job choice, {@link healthyFirst}). */
  failedAt: Map<string, number>
  /** jobId -> failed attempts of this peer. */
  localFailures: Map<string, number>
  clock(): number
  /** This peer gives a job up after this many of its own failed attempts. */
  localMaxFailures: number
  endHost: JobEndHost
}

/**
 * The wall-clock limit of one MicroJob run: {@link RUN_TIMEOUT_FACTOR} times the job's own estimate, at least
 * {@link DEFAULT_MIN_RUN_TIMEOUT_MS}, at most {@link DEFAULT_MAX_RUN_TIMEOUT_MS}. A module that loops forever then
 * costs each peer one bounded attempt, not the executor's whole default limit per MicroJob.
 */
export function runTimeoutMs (spec: Pick<JobSpec, 'estimate'>): number {
  const estimated = spec.estimate.secondsPerMicroJob * 1000 * RUN_TIMEOUT_FACTOR
  if (!Number.isFinite(estimated)) return DEFAULT_MAX_RUN_TIMEOUT_MS
  return Math.round(Math.min(DEFAULT_MAX_RUN_TIMEOUT_MS, Math.max(DEFAULT_MIN_RUN_TIMEOUT_MS, estimated)))
}

/**
 * Poison isolation in job choice: jobs this peer saw fail come after every other candidate (most recent failure
 * last), so a failing job never holds a peer back from a healthy one.
 */
export function healthyFirst<C extends { id: string }> (candidates: C[], failedAt: ReadonlyMap<string, number>): C[][] {
  const healthy = candidates.filter(c => !failedAt.has(c.id))
  const failing = candidates.filter(c => failedAt.has(c.id))
    .sort((a, b) => (failedAt.get(a.id) ?? 0) - (failedAt.get(b.id) ?? 0))
  return [healthy, ...failing.map(c => [c])].filter(group => group.length > 0)
}

/**
 * A MicroJob failed here: recorded in the CRDT (it counts against the job), and the job goes to the back of the job
 * choice. The job is given up here once the CRDT says it failed, or after `localMaxFailures` attempts of this peer.
 */
export function itemFailed (host: PoisonHost, ctx: JobContext, item: LockedItem, err: Error): void {
  const jobId = ctx.job.jobId
  host.failedAt.set(jobId, host.clock())
  const local = (host.localFailures.get(jobId) ?? 0) + 1
  host.localFailures.set(jobId, local)
  try {
    ctx.failures.record(item.macroIndex, item.index, item.leaseTerm, err.name)
  } catch (e) {
    log.error('cannot record the failure of %s %d.%d: %e', jobId, item.macroIndex, item.index, e)
  }
  if (ctx.failures.failed) {
    giveUp(host.endHost, ctx, ctx.failures.summary())
  } else if (local >= host.localMaxFailures) {
    giveUp(host.endHost, ctx, { ...ctx.failures.summary(), attempts: local, peers: 1 })
  }
}

/**
 * The CRDT says the job failed: this peer gives it up only once one of its own runs failed too. A failure record is
 * a signed claim, free to write for any key (two colluding keys, the DApp's own node among them, could otherwise
 * fail a healthy job that is nearly done on every peer, and its creator would refund the work at the deadline); a
 * peer that has not failed here goes on working, and meets a real poison MicroJob in the queue soon enough.
 */
export function jobFailedInCrdt (host: PoisonHost, ctx: JobContext): void {
  const jobId = ctx.job.jobId
  if ((host.localFailures.get(jobId) ?? 0) === 0) {
    log('job %s: the CRDT says it failed, no run failed here: working on', jobId)
    return
  }
  giveUp(host.endHost, ctx, ctx.failures.summary())
}
