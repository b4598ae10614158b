import type { JobStatusName } from './client/contract-types.js'

/**
 * `JobEscrow.Status` as numbers (the contract returns them as `bigint`; compare with `Number(status)`).
 * A rejected submission is not a status of its own: the job returns to `Open` (events `JobRejected`, `JobReopened`).
 */
export const JobStatus = {
  None: 0,
  Open: 1,
  Submitted: 2,
  Released: 3,
  Refunded: 4
} as const

/** One of the {@link JobStatus} values. */
export type JobStatus = typeof JobStatus[keyof typeof JobStatus]

/**
 * Past its deadline by the chain's clock (`nowSeconds`, the latest block's timestamp) with nothing left to release it:
 * `Open` (`submitResults` needs `block.timestamp <= deadline`), or `Submitted` with no verifier drawn (no draw
 * starts after the deadline). The escrow can only refund such a job (`refund`: the same two cases).
 */
export function isExpired (job: { status: JobStatusName, deadline: number, assigned: number }, nowSeconds: number): boolean {
  if (nowSeconds <= job.deadline) return false
  return job.status === 'Open' || (job.status === 'Submitted' && job.assigned === 0)
}

/** Why an {@link isExpired} job can no longer be released, in the words every view uses. */
export function expiryReason (status: JobStatusName): string {
  return status === 'Open' ? 'its deadline has passed' : 'its deadline passed before any verifier was drawn (no draw starts after it)'
}

/** Released or refunded: the escrow is done with the job (no result, draw or payment of a round can follow). */
export function isSettledStatus (status: JobStatusName): status is 'Released' | 'Refunded' {
  return status === 'Released' || status === 'Refunded'
}
