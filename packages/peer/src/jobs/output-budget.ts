import { jobOutputBound } from '../protocol/index.js'
import type { KnownJob } from './announcements.js'

export interface OutputBudgetInit {
  /** The most bytes all outputs of one job may come to for this peer to take it (`jobmesh start --max-job-output`). */
  maxJobOutputBytes: number
  /** Called once per job left alone, with the job's bound (`jobOutputBound`). */
  onOver?(job: Pick<KnownJob, 'jobId' | 'spec'>, bound: number): void
}

/** An operator's bound on what one job may make this peer hold (every output of a job it finalizes). */
export interface OutputBudget {
  /** Whether `job` may output more than the bound allows (then it is not taken). */
  over(job: Pick<KnownJob, 'jobId' | 'spec'>): boolean
}

/**
 * A job's outputs are bounded by its spec (`estimate.maxOutputBytes` per MicroJob, 64 MiB when it declares none), and
 * the peer that finalizes it fetches and pins all of them: a job whose bound exceeds `maxJobOutputBytes` is left alone.
 */
export function outputBudget (init: OutputBudgetInit): OutputBudget {
  const told = new Set<string>()
  return {
    over (job) {
      const bound = jobOutputBound(job.spec)
      if (bound <= init.maxJobOutputBytes) return false
      if (!told.has(job.jobId)) {
        told.add(job.jobId)
        init.onOver?.(job, bound)
      }
      return true
    }
  }
}
