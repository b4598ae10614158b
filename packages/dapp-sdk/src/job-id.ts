import { InvalidJobIdError } from './errors.js'

const JOB_ID = /^0x[0-9a-fA-F]{64}$/

/** `jobId` lower-cased, as the escrow and the peers key it. @throws InvalidJobIdError when it is not 0x and 64 hex digits */
export function checkJobId (jobId: unknown): string {
  if (typeof jobId !== 'string' || !JOB_ID.test(jobId)) {
    throw new InvalidJobIdError(`not a job id: ${JSON.stringify(jobId)} (expected 0x and 64 hex digits)`)
  }
  return jobId.toLowerCase()
}
