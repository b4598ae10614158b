import { chooseJob } from '../protocol/index.js'
import { pastCutoff } from './deadline.js'
import { healthyFirst } from './poison.js'
import type { KnownJob } from '../jobs/index.js'
import type { PeerState } from '../protocol/index.js'
import type { ProcessorInit } from './types.js'

/** What choosing the next job needs of the processor. */
export interface JobChoiceHost {
  readonly jobs: ReadonlyMap<string, KnownJob>
  /** Jobs ended here (complete, failed or given up) and jobs retired: never chosen. */
  readonly completed: ReadonlySet<string>
  readonly retired: ReadonlyMap<string, unknown>
  /** jobId -> when a MicroJob of it last failed here: such jobs come after the healthy ones. */
  readonly failedAt: ReadonlyMap<string, number>
  deferJob?: ProcessorInit['deferJob']
}

/**
 * The job to work on next: of the jobs not ended here, not retired, not past their cutoff (`now`, the chain's time)
 * and not deferred, the best paid one this hardware can run (`chooseJob`), healthy jobs before failing ones.
 */
export function nextJob (host: JobChoiceHost, now: number, hardware: PeerState): KnownJob | undefined {
  const candidates = [...host.jobs.values()]
    .filter(j => !host.completed.has(j.jobId) && !host.retired.has(j.jobId) && !pastCutoff(j, now) && host.deferJob?.(j) !== true)
    .map(j => ({ id: j.jobId, value: j.value, minVramGb: j.minVramGb, gpuModel: j.gpuModel, modelId: j.modelId, job: j }))
  for (const group of healthyFirst(candidates, host.failedAt)) {
    const choice = chooseJob(group, hardware)
    if (choice != null) return choice.job
  }
  return undefined
}
