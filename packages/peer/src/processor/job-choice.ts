import { chooseJob } from '../protocol/index.js'
import { pastCutoff } from './deadline.js'
import { isDrained, undrainedFirst } from './drained-jobs.js'
import { healthyFirst } from './poison.js'
import { peerJobKey } from './start-order.js'
import type { KnownJob } from '../jobs/index.js'
import type { PeerState } from '../protocol/index.js'
import type { DrainedMark } from './drained-jobs.js'
import type { ProcessorInit } from './types.js'

/** What choosing the next job needs of the processor. */
export interface JobChoiceHost {
  readonly jobs: ReadonlyMap<string, KnownJob>
  /** Jobs ended here (complete, failed or given up) and jobs retired: never chosen. */
  readonly completed: ReadonlySet<string>
  readonly retired: ReadonlyMap<string, unknown>
  /** jobId -> when a MicroJob of it last failed here: such jobs come after the healthy ones. */
  readonly failedAt: ReadonlyMap<string, number>
  /** Jobs in which this peer lately found nothing open (drained-jobs.ts): they come after the others. Default none. */
  readonly drained?: ReadonlyMap<string, DrainedMark>
  deferJob?: ProcessorInit['deferJob']
  /** This peer's PeerId: equally paid jobs are taken in the order of its key in each (`peerJobKey`). Default: by id. */
  readonly self?: string
}

/** The tie-break of the job choice: this peer's key in each job, so peers spread over equally paid jobs. */
function tieKey (host: JobChoiceHost): ((id: string) => string) | undefined {
  const self = host.self
  return self == null ? undefined : id => peerJobKey(id, self)
}

interface Candidate { id: string, value: bigint, minVramGb: number, gpuModel?: string, modelId?: string, job: KnownJob }

/** The jobs that may be chosen now: not ended here, not retired, not past their cutoff (`now`, the chain's time), not deferred. */
function candidates (host: JobChoiceHost, now: number): Candidate[] {
  return [...host.jobs.values()]
    .filter(j => !host.completed.has(j.jobId) && !host.retired.has(j.jobId) && !pastCutoff(j, now) && host.deferJob?.(j) !== true)
    .map(j => ({ id: j.jobId, value: j.value, minVramGb: j.minVramGb, gpuModel: j.gpuModel, modelId: j.modelId, job: j }))
}

/**
 * The job to work on next: of the candidates, the best paid one this hardware can run (`chooseJob`), healthy jobs
 * before failing ones, and of the healthy ones those not drained here first.
 */
export function nextJob (host: JobChoiceHost, now: number, hardware: PeerState): KnownJob | undefined {
  const drained = host.drained ?? new Map()
  for (const byHealth of healthyFirst(candidates(host, now), host.failedAt)) {
    for (const group of undrainedFirst(byHealth, drained)) {
      const choice = chooseJob(group, hardware, tieKey(host))
      if (choice != null) return choice.job
    }
  }
  return undefined
}

/**
 * Whether a job other than `jobId`, healthy and not drained here, is open to this peer: a peer that finds nothing
 * open in `jobId` goes to it (turns.ts) instead of waiting for the job's tail.
 */
export function otherOpenJob (host: JobChoiceHost, now: number, hardware: PeerState, jobId: string): boolean {
  const drained = host.drained ?? new Map()
  const open = candidates(host, now).filter(c => c.id !== jobId && !host.failedAt.has(c.id) && !isDrained(drained, c.job))
  return chooseJob(open, hardware, tieKey(host)) != null
}
