import { logger } from '@libp2p/logger'
import { ExecutionTimeoutError, isModuleFailureName } from '../executor/index.js'
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
  /**
   * Jobs with a failure here that bears the CRDT's failed state out: an error of the module's own, or a run that
   * used its whole time limit in the queue (a content fetch depends on the network, not the job).
   */
  decisive: Set<string>
  clock(): number
  /** This peer gives a job up after this many of its own failed attempts. */
  localMaxFailures: number
  endHost: JobEndHost
  /** Runs one MicroJob of the job here, outside the queue, keeping nothing (`checkRun`). @throws what the run throws */
  checkRun(ctx: JobContext, macroIndex: number, index: number): Promise<void>
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
 * A run's time limit on this peer: the spec's ({@link runTimeoutMs}), within what the job's commit window gives a
 * verifier's re-run (`ProcessorInit.runLimitMs`).
 */
export function jobRunLimit (host: { runLimitMs?(jobId: string): number | undefined }, ctx: Pick<JobContext, 'job'>): number {
  return Math.min(runTimeoutMs(ctx.job.spec), host.runLimitMs?.(ctx.job.jobId) ?? Infinity)
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
 * Whether a failed run here bears the CRDT's failed state out: an error of the module's own, or a run that used its
 * whole time limit in a worker (the limit counts from the run's start, not its wait for a worker; a check's limit is
 * `CHECK_RUN_TIMEOUT_FACTOR` times the queue's). A content fetch depends on the network, not the job.
 */
export function bearsFailureOut (err: Pick<Error, 'name'>): boolean {
  return isModuleFailureName(err.name) || err.name === ExecutionTimeoutError.name
}

/**
 * A MicroJob failed here: recorded in the CRDT (it counts against the job), and the job goes to the back of the job
 * choice. The job is given up here once the CRDT says it failed and a failure here bears it out ({@link
 * PoisonHost.decisive}), or after `localMaxFailures` attempts of this peer.
 */
export function itemFailed (host: PoisonHost, ctx: JobContext, item: LockedItem, err: Error): void {
  const jobId = ctx.job.jobId
  host.failedAt.set(jobId, host.clock())
  const local = (host.localFailures.get(jobId) ?? 0) + 1
  host.localFailures.set(jobId, local)
  failedThisRun.add(ctx)
  if (bearsFailureOut(err)) host.decisive.add(jobId)
  try {
    ctx.failures.record(item.macroIndex, item.index, item.leaseTerm, err.name, err.message)
  } catch (e) {
    log.error('cannot record the failure of %s %d.%d: %e', jobId, item.macroIndex, item.index, e)
  }
  if (ctx.failures.failed && host.decisive.has(jobId)) {
    giveUp(host.endHost, ctx, ctx.failures.summary())
  } else if (local >= host.localMaxFailures) {
    giveUp(host.endHost, ctx, { ...ctx.failures.summary(), attempts: local, peers: 1 })
  }
}

/**
 * A job context opens on a job this peer has failed attempts at in the CRDT (written before a restart: the doc store
 * keeps them): they count again, so a restart neither retries a job it gave up here nor forgets that its failures bear
 * the CRDT's failed state out. Returns whether the job is given up.
 */
export function recallOwnFailures (host: PoisonHost, ctx: JobContext): boolean {
  const own = ctx.failures.own()
  if (own.attempts === 0) return false
  const jobId = ctx.job.jobId
  host.failedAt.set(jobId, host.clock())
  const local = Math.max(host.localFailures.get(jobId) ?? 0, own.attempts)
  host.localFailures.set(jobId, local)
  if (own.reasons.some(name => bearsFailureOut({ name }))) host.decisive.add(jobId)
  if (local < host.localMaxFailures) return false
  log('job %s: %d failed attempts of this peer recorded in the CRDT: given up here', jobId, local)
  giveUp(host.endHost, ctx, { ...ctx.failures.summary(), attempts: local, peers: 1, earlier: !failedThisRun.has(ctx) })
  return true
}

/**
 * The CRDT says the job failed. A failure record is a signed claim any key can write in its own slot: two keys that
 * never ran anything (the DApp's own node may be one) could otherwise make every processor give a healthy job up when
 * it is nearly done, and its creator would refund the fee at the deadline with the outputs stored. So a peer whose
 * own runs of the job never failed runs the MicroJob the records name most (one run, outside the queue, under
 * `CHECK_RUN_TIMEOUT_FACTOR` times the queue's time limit: the records' writers pick the heaviest MicroJob and the
 * moment, and the check shares the machine with this peer's other runs) and gives the job up if it fails here too the
 * way a run in the queue would bear it out ({@link bearsFailureOut}: a module's own error, or that whole limit used, as
 * a module that loops does);
 * otherwise (a fetch error, or the run works) the records are not borne out and the peer works on. One check per job
 * context at a time; none once the job is over here.
 */
export function jobFailedInCrdt (host: PoisonHost, ctx: JobContext): void {
  const jobId = ctx.job.jobId
  if (host.decisive.has(jobId)) {
    // decisive by a failure of this run, or by this peer's failure records of a run before a restart
    giveUp(host.endHost, ctx, { ...ctx.failures.summary(), earlier: !failedThisRun.has(ctx) })
    return
  }
  if (checking.has(ctx) || ctx.finalized) return
  // JobFailures counts only records of the job's own MicroJobs
  const micro = ctx.failures.failingMicroJobs().find(key => !ctx.progress.has(key))
  if (micro === undefined) {
    log('job %s: the CRDT says it failed, on MicroJobs that have results: working on', jobId)
    return
  }
  const [macroIndex, index] = micro.split('.').map(Number)
  checking.add(ctx)
  void host.checkRun(ctx, macroIndex, index)
    .then(() => {
      log('job %s: the CRDT says it failed; %s runs here: working on', jobId, micro)
    }, (err: Error) => {
      if (ctx.finalized || !bearsFailureOut(err)) {
        log('job %s: the check of %s ended with %s: working on', jobId, micro, err.name)
        return
      }
      host.failedAt.set(jobId, host.clock())
      host.localFailures.set(jobId, (host.localFailures.get(jobId) ?? 0) + 1)
      failedThisRun.add(ctx)
      host.decisive.add(jobId)
      log('job %s: %s failed here too (%s): giving it up', jobId, micro, err.name)
      giveUp(host.endHost, ctx, ctx.failures.summary())
    })
    .catch((err: Error) => { log.error('job %s: checking its failed state: %e', jobId, err) })
    .finally(() => { checking.delete(ctx) })
}

/** Job contexts whose failed state is being checked by a run (`jobFailedInCrdt`). */
const checking = new WeakSet<JobContext>()
/** Job contexts with a failed run of this process (not only failure records of a run before a restart). */
const failedThisRun = new WeakSet<JobContext>()
