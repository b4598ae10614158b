/** A condition a test waited for did not hold within its deadline. */
export class WaitTimeoutError extends Error {
  static override readonly name = 'WaitTimeoutError'
  override readonly name = 'WaitTimeoutError'

  constructor (what: string, timeoutMs: number) {
    super(`timed out after ${timeoutMs} ms waiting for ${what}`)
  }
}

/** A pooled anvil refused a test method (snapshot, revert, time): the pool cannot give a test a clean chain. */
export class AnvilRpcError extends Error {
  static override readonly name = 'AnvilRpcError'
  override readonly name = 'AnvilRpcError'

  constructor (method: string, message: string, options?: ErrorOptions) {
    super(`anvil refused ${method}: ${message}`, options)
  }
}
