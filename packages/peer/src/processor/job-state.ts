import type { KnownJob } from '../jobs/index.js'
import type { KnownJobSummary, RetiredAs } from './types.js'

/** What the processor knows of its jobs' ends: each set holds jobIds. */
export interface JobStateHost {
  retired: ReadonlyMap<string, RetiredAs>
  failed: ReadonlySet<string>
  /** Of the jobs given up here, those the other peers completed. */
  doneElsewhere?: ReadonlySet<string>
  completed: ReadonlySet<string>
  contexts: ReadonlyMap<string, unknown>
  settled?(jobId: string): boolean
}

/** A known job's state as `jobmesh status` lists it: retired first (settled, expired or refused), then given up, ended here, worked on. */
export function jobState (host: JobStateHost, jobId: string): KnownJobSummary['state'] {
  const retired = host.retired.get(jobId)
  if (retired !== undefined) return retired
  if (host.failed.has(jobId) && host.doneElsewhere?.has(jobId) !== true) return 'failed'
  if (host.completed.has(jobId)) return 'complete'
  if (host.contexts.has(jobId)) return 'working'
  return host.settled?.(jobId) === true ? 'settled' : 'open'
}

/** A known job as `jobmesh status` lists it. */
export function knownJobSummary (job: KnownJob, host: JobStateHost): KnownJobSummary {
  return {
    jobId: job.jobId,
    microJobs: job.spec.slicing.macroJobs * job.spec.slicing.microJobsPerMacro,
    value: job.value.toString(),
    deadline: job.spec.deadline,
    state: jobState(host, job.jobId)
  }
}
