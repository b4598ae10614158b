import type { CommitTimes, EscrowJobState } from './client/contract-types.js'

/**
 * The time a drawn verifier has for each sampled re-run of a job: its commit window (`JobEscrow._startCommit`:
 * `commitWindow` blocks plus `samples * macroJobs * secondsPerMicroJob` seconds in blocks, capped), in ms, shared
 * among the `samples * macroJobs` re-runs. A run that took a processor longer than this cannot be re-run in time by
 * a verifier as fast, who would then be slashed for a window it could not meet.
 */
export function rerunAllowanceMs (job: Pick<EscrowJobState, 'samples' | 'macroJobs' | 'secondsPerMicroJob'>, times: CommitTimes): number {
  const reruns = Math.max(1, job.samples * job.macroJobs)
  const spb = times.secondsPerBlock
  const rerunBlocks = Math.min(Math.ceil(reruns * job.secondsPerMicroJob / spb), times.maxRerunBlocks)
  return Math.floor((times.commitWindowBlocks + rerunBlocks) * spb * 1000 / reruns)
}
