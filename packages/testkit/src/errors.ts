/** A condition a test waited for did not hold within its deadline. */
export class WaitTimeoutError extends Error {
  static readonly code = 'ERR_WAIT_TIMEOUT'
  readonly code = WaitTimeoutError.code

  constructor (what: string, timeoutMs: number) {
    super(`timed out after ${timeoutMs} ms waiting for ${what}`)
    this.name = 'WaitTimeoutError'
  }
}
