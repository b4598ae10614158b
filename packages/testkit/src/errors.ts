/** A condition a test waited for did not hold within its deadline. */
export class WaitTimeoutError extends Error {
  static override readonly name = 'WaitTimeoutError'
  override readonly name = 'WaitTimeoutError'

  constructor (what: string, timeoutMs: number) {
    super(`timed out after ${timeoutMs} ms waiting for ${what}`)
  }
}
