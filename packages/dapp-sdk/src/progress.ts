import { anySignal } from '@jobmesh/contracts'
import { failedForCertain, FAILURES_MAP, followMacroDocs, JobFailures, JobProgress, recordVerifier, SUMMARY_MAP } from '@jobmesh/peer/coord'
import { roundDocName } from '@jobmesh/peer/crdt'
import { excludingVerifier, roundKey, slashedPeerIds } from '@jobmesh/peer/jobs'
import { DEFAULT_FAILED_QUIET_MS, PROGRESS_RESYNC_MS } from './constants.js'
import { MAX_TIMER_MS, checkDuration } from './durations.js'
import { AbortError, DeadlinePassedError, JobFailedError, TimeoutError } from './errors.js'
import { loadEscrowJob } from './job-info.js'
import type { ClientContext } from './context.js'
import type { FailureSummary, RecordVerifier } from '@jobmesh/peer/coord'
import type { EscrowJobState } from '@jobmesh/contracts'
import type * as Y from 'yjs'

/** How many MicroJobs of a job have a result. */
export interface ProgressUpdate {
  /** MicroJobs with at least one valid (signed, owner-checked) result. */
  done: number
  total: number
  /**
   * The processing round counted when it is not the first: the job's rejections on chain when the iteration
   * started (docs/settlement.md). Absent in round 0.
   */
  round?: number
  /**
   * Set when the job failed (poison isolation, docs/coordination.md): its MicroJobs failed on several peers and
   * the peers gave it up. `reasons` are the executor's error names (e.g. `InvalidWasmError`, `WasmTrapError`,
   * `ExecutionTimeoutError`); `details` their messages as the failing peers wrote them (`name: message`, at most 5,
   * e.g. `WasmTrapError: ... unreachable`: for people, each peer's own word). The iteration then ends with
   * `JobFailedError`: at once when every failure is the module's own or no MicroJob has a result; when time limits
   * are among them and results have landed, only after `failedQuietMs` without a new result (peers whose runs ran
   * out of time give a job up that faster ones complete).
   */
  failed?: { attempts: number, peers: number, reasons: string[], details: string[] }
}

export interface ProgressOptions {
  signal?: AbortSignal
  /** Give up after this many ms (TimeoutError); default: at the job's deadline (DeadlinePassedError). */
  timeoutMs?: number
  /**
   * How long a failed state that time limits make doubtful must see no new result before it ends the iteration (ms).
   * Default {@link DEFAULT_FAILED_QUIET_MS}.
   */
  failedQuietMs?: number
}

/** Opens the doc of a job's round (default 0) with the client's doc timeout. */
export async function openJobDoc (ctx: ClientContext, jobId: string, signal?: AbortSignal, round = 0): Promise<Y.Doc> {
  return ctx.docs.open(roundDocName(jobId.toLowerCase(), round), { signal: anySignal([signal, ctx.stopped], ctx.settings.docTimeoutMs) })
}

/**
 * A record verifier for a round's doc: in a round > 0 the records of the PeerIds the peers exclude count as absent,
 * the same set the processors use (`slashedPeerIds` of `@jobmesh/peer/jobs`: peers registered by the wallet of a
 * submitter slashed for this job).
 */
export async function roundVerifier (ctx: ClientContext, jobId: string, round: number, signal?: AbortSignal): Promise<RecordVerifier> {
  const verifier = recordVerifier()
  if (round === 0) return verifier
  const excluded = await slashedPeerIds({ chain: ctx.chain.client, docs: ctx.docs }, jobId, round, {
    signal: anySignal([signal, ctx.stopped], ctx.settings.docTimeoutMs)
  })
  return excludingVerifier(verifier, excluded)
}

/** MicroJobs in MacroJob `m` by the escrow's slicing (0 past the last): records for MicroJobs outside it do not count. */
export function escrowSizeOf (job: Pick<EscrowJobState, 'macroJobs' | 'microJobsPerMacro'>): (m: number) => number {
  return m => m < job.macroJobs ? job.microJobsPerMacro : 0
}

/** The failure records of a job's round doc, as the escrow slices the job (call `stop` when done). */
export function roundFailures (doc: Y.Doc, id: string, job: Pick<EscrowJobState, 'macroJobs' | 'microJobsPerMacro' | 'rejections'>,
  verifier: RecordVerifier): JobFailures {
  return new JobFailures({ verifier }, doc.getMap<Uint8Array>(FAILURES_MAP), roundKey(id, job.rejections), { sizeOf: escrowSizeOf(job) })
}

/**
 * Whether a failed state ends the progress now: at once when it is beyond doubt (`failedForCertain`: every failure the
 * module's own, or no result at all), else once no result has landed for `quietMs` (`quietForMs` so far).
 */
export function failedForGood (summary: Pick<FailureSummary, 'failed' | 'reasons'>, done: number, quietForMs: number, quietMs: number): boolean {
  return failedForCertain(summary, done) || (summary.failed && quietForMs >= quietMs)
}

/**
 * Yields `{ done, total }` (plus `round` after a rejection) now and on every MicroJob that gets its first valid result; returns after the
 * update with `done === total`. It counts the job's current round (its rejections on chain when called): after a
 * rejection, call it again to follow the next round. While it waits it exchanges the round's doc with the connected
 * peers every {@link PROGRESS_RESYNC_MS} (results whose gossip was lost still arrive) and reads the job on chain:
 * once the round is released, every MicroJob has a result in the released manifest and the count is `total`.
 *
 * @throws JobNotFoundError, the chain errors, DeadlinePassedError, TimeoutError, AbortError
 */
export async function * watchProgress (ctx: ClientContext, jobId: string, options: ProgressOptions = {}): AsyncGenerator<ProgressUpdate, void, undefined> {
  // the job's docs stay open while it is watched, and are closed when no operation of this client uses them
  const release = await ctx.jobDocs.hold(jobId)
  try {
    yield * followProgress(ctx, jobId.toLowerCase(), options)
  } finally {
    await release()
  }
}

/**
 * Runs `step` (a doc open or read of the job's) within what is left of `timeoutMs` from `started`: a step it cuts
 * short is the iteration's TimeoutError, as a wait for results would be. Without `timeoutMs`, `step` as it is.
 */
async function withinTimeout<T> (id: string, options: ProgressOptions, started: number, step: (signal?: AbortSignal) => Promise<T>): Promise<T> {
  if (options.timeoutMs === undefined) return await step(options.signal)
  const left = Math.max(0, started + options.timeoutMs - Date.now())
  const bound = anySignal([options.signal], left)
  try {
    return await step(bound)
  } catch (err) {
    if (options.signal?.aborted !== true && bound.aborted) {
      throw new TimeoutError(`progress of ${id}: its docs were not read within ${options.timeoutMs} ms`, { cause: err })
    }
    throw err
  }
}

async function * followProgress (ctx: ClientContext, id: string, options: ProgressOptions): AsyncGenerator<ProgressUpdate, void, undefined> {
  // a timeout counts from the call: the docs' opens (each up to the client's doc timeout) are within it (a submit
  // --timeout 2 once followed a loaded peer's docs for 60 s)
  const started = Date.now()
  const job = await loadEscrowJob(ctx, id, options.signal)
  const total = job.macroJobs * job.microJobsPerMacro
  const round = job.rejections
  const doc = await withinTimeout(id, options, started, async (signal) => await openJobDoc(ctx, id, signal, round))
  const verifier = await withinTimeout(id, options, started, async (signal) => await roundVerifier(ctx, id, round, signal))
  const tracker = new JobProgress({ verifier }, roundKey(id, round), total, escrowSizeOf(job))
  const failures = roundFailures(doc, id, job, verifier)
  const byDeadline = options.timeoutMs === undefined
  // until the deadline by the chain's clock, which the escrow reads it against
  const waitMs = options.timeoutMs === undefined
    ? Math.max(0, (job.deadline - await ctx.chain.client.chainTime({ signal: options.signal })) * 1000)
    : Math.max(0, started + options.timeoutMs - Date.now())
  const signal = anySignal([options.signal, ctx.stopped])
  let wake: (() => void) | undefined
  const onDone = (): void => { wake?.() }
  // the timer's own word ends the wait: libuv counts a timer from the loop's cached clock, which on a busy loop is
  // behind Date.now(), so a timer fired before a Date.now() comparison said the time was up, and with no timer left the
  // wait never ended (a submit --timeout 2 hung for a minute on a loaded CI machine)
  // (a wait past the longest timer, a deadline weeks away, has none: changes wake it, and the clock decides)
  let timeUp = false
  const timer = waitMs <= MAX_TIMER_MS ? setTimeout(() => { timeUp = true; onDone() }, waitMs) : undefined
  const waitStarted = Date.now()
  let quietTimer: ReturnType<typeof setTimeout> | undefined
  signal.addEventListener('abort', onDone)
  tracker.addEventListener('microjob:done', onDone)
  tracker.addEventListener('summary', onDone)
  failures.addEventListener('failed', onDone)
  let released = false
  const macroDocNames: string[] = []
  const resync = setInterval(() => {
    void Promise.all([
      ...[roundDocName(id, round), ...macroDocNames].map(async name => await ctx.docs.confirm(name, { timeoutMs: PROGRESS_RESYNC_MS, signal }).catch(() => 0)),
      ctx.chain.client.job(id, { signal }).then(j => {
        if (j.status === 'Released' && j.rejections === round) {
          released = true
          onDone()
        }
      }, () => {})
    ])
  }, PROGRESS_RESYNC_MS)
  try {
    tracker.watchSummaries(doc.getMap<Uint8Array>(SUMMARY_MAP))
    // the results live in the MacroJobs' docs (docs/coordination.md, A doc per MacroJob)
    macroDocNames.push(...await withinTimeout(id, options, started, async (signal) => await followMacroDocs(ctx.docs, tracker, roundDocName(id, round), job.macroJobs, {
      signal: anySignal([signal, ctx.stopped], ctx.settings.docTimeoutMs)
    })))
    let reported = -1
    const quietMs = checkDuration('failedQuietMs', options.failedQuietMs ?? DEFAULT_FAILED_QUIET_MS, 0)
    // since when the failed state has held with no new result (a doubtful one waits `quietMs` from there)
    let quietSince: number | undefined
    while (true) {
      const done = released ? total : tracker.shown()
      const f = failures.summary()
      if (f.failed && done < total) {
        const now = Date.now()
        if (quietSince === undefined || done !== reported) quietSince = now
        if (failedForGood(f, done, now - quietSince, quietMs)) {
          const failed = { attempts: f.attempts, peers: f.peers, reasons: f.reasons, details: f.details }
          yield round === 0 ? { done, total, failed } : { done, total, round, failed }
          throw new JobFailedError(`job ${id} failed: ${f.attempts} failed MicroJob attempts on ${f.peers} peers (${f.details.join('; ')})`, failed)
        }
        clearTimeout(quietTimer)
        quietTimer = setTimeout(onDone, quietSince + quietMs - now)
      }
      if (done !== reported) {
        reported = done
        yield round === 0 ? { done, total } : { done, total, round }
        if (done >= total) return
      }
      if (signal.aborted) throw new AbortError(`progress of ${id} aborted`, { cause: signal.reason })
      if (timeUp || Date.now() - waitStarted >= waitMs) {
        if (byDeadline) throw new DeadlinePassedError(`job ${id} passed its deadline with ${done} of ${total} MicroJobs done; refund it (jobmesh-dapp refund ${id}, or the SDK's refund)`)
        throw new TimeoutError(`progress of ${id}: ${done} of ${total} MicroJobs done after ${waitMs} ms`)
      }
      await new Promise<void>((resolve) => { wake = resolve })
      wake = undefined
    }
  } finally {
    clearInterval(resync)
    clearTimeout(timer)
    clearTimeout(quietTimer)
    signal.removeEventListener('abort', onDone)
    tracker.removeEventListener('microjob:done', onDone)
    tracker.removeEventListener('summary', onDone)
    failures.removeEventListener('failed', onDone)
    tracker.stop()
    failures.stop()
  }
}
