import { isHexString } from 'ethers'
import { InvalidJobIdError } from './errors.js'

/** `jobId` lower-cased, as the escrow and the peers key it. @throws InvalidJobIdError when it is not 0x and 64 hex digits */
export function checkJobId (jobId: unknown): string {
  if (typeof jobId !== 'string' || !isHexString(jobId, 32)) {
    throw new InvalidJobIdError(`not a job id: ${JSON.stringify(jobId)} (expected 0x and 64 hex digits)`)
  }
  return jobId.toLowerCase()
}
