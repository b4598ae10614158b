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
 * Open past its deadline by the chain's clock (`nowSeconds`, the latest block's timestamp): `submitResults` needs
 * `block.timestamp <= deadline`, so the escrow can never release such a job, only refund it.
 */
export function isExpiredOpen (job: { status: JobStatusName, deadline: number }, nowSeconds: number): boolean {
  return job.status === 'Open' && nowSeconds > job.deadline
}

/** Released or refunded: the escrow is done with the job (no result, draw or payment of a round can follow). */
export function isSettledStatus (status: JobStatusName): status is 'Released' | 'Refunded' {
  return status === 'Released' || status === 'Refunded'
}
