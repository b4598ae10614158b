import { nextJob, otherOpenJob } from './job-choice.js'
import type { DrainedMark } from './drained-jobs.js'
import type { JobChoiceHost } from './job-choice.js'
import type { TurnsEnd } from './turns.js'
import type { KnownJob } from '../jobs/index.js'
import type { PeerState } from '../protocol/index.js'
import type { ProcessorInit } from './types.js'

/** What the processor's work choice reads of the processor. */
export interface WorkChoiceHost extends Omit<JobChoiceHost, 'drained' | 'deferJob'> {
  failedAt: Map<string, number>
  clock(): number
  /** The time deadlines are read against (ProcessorInit.deadlineClock). */
  deadlineClock(): number
}

/**
 * The processor's state of job choice (job-choice.ts over it): the jobs drained here, the model it last ran (warm for
 * the next choice), and its join of a job on chain (a failed join puts the job after the healthy ones).
 */
export interface WorkChoice {
  /** The job to work on next, or undefined. */
  next(): KnownJob | undefined
  /** Another job, healthy and not drained here, is open to this peer (turns.ts leaves `jobId` for it). */
  otherOpen(jobId: string): boolean
  /** ProcessorInit.joinJob, when there is one. */
  readonly join?: (jobId: string, round: number, signal: AbortSignal) => Promise<void>
  /** This peer took up `job` (its doc is open): its model, if any, is the loaded one from now on. */
  opened(job: KnownJob): void
  /** This peer's turns of `job` ended: drained (nothing open for it lately) or not. */
  ended(job: KnownJob, end: TurnsEnd): void
  /** The model of the job this peer last worked on. */
  loadedModel(): string | undefined
}

export function workChoice (host: WorkChoiceHost, init: Pick<ProcessorInit, 'deferJob' | 'hardware' | 'joinJob'>): WorkChoice {
  const drained = new Map<string, DrainedMark>()
  const choice: JobChoiceHost = { ...host, drained, deferJob: init.deferJob }
  let lastModelId: string | undefined
  const hardware = (): PeerState => {
    const own = init.hardware ?? { gpuModel: 'Any', vramGb: 0 }
    return { ...own, loadedModelId: lastModelId ?? own.loadedModelId }
  }
  const joinJob = init.joinJob

  return {
    next: () => nextJob(choice, host.deadlineClock(), hardware()),
    otherOpen: (jobId) => otherOpenJob(choice, host.deadlineClock(), hardware(), jobId),
    join: joinJob == null
      ? undefined
      : async (jobId, round, signal) => {
        try {
          await joinJob(jobId, round, { signal })
        } catch (err) {
          if (!signal.aborted) host.failedAt.set(jobId, host.clock())
          throw err
        }
      },
    opened (job) {
      if (job.modelId != null) lastModelId = job.modelId
    },
    ended (job, end) {
      if (end === 'drained') drained.set(job.jobId, { at: host.clock(), round: job.round })
      else drained.delete(job.jobId)
    },
    loadedModel: () => lastModelId
  }
}
