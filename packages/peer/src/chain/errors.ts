/**
 * Errors of the chain client. One class per condition; branch on `err.name`. Each wraps the ethers/RPC error
 * as `cause`.
 */

/** A call or transaction reverted; `errorName` is the decoded custom error (e.g. `WrongStatus`). */
export class ChainRevertError extends Error {
  static override readonly name = 'ChainRevertError'
  override name = 'ChainRevertError'
  /**
   * The custom error's name, `Error` (require string), `Panic`, `OutOfGas` (it used its whole gas limit twice), or
   * `UnknownRevert` when it could not be decoded.
   */
  readonly errorName: string
  /** The decoded error arguments, in order. */
  readonly errorArgs: readonly unknown[]

  constructor (message: string, errorName: string, errorArgs: readonly unknown[] = [], options?: ErrorOptions) {
    super(message, options)
    this.errorName = errorName
    this.errorArgs = errorArgs
  }
}

/** The JSON-RPC endpoint did not answer (wrong URL, node down, connection refused). */
export class RpcUnreachableError extends Error {
  static override readonly name = 'RpcUnreachableError'
  override name = 'RpcUnreachableError'
}

/** A call, a transaction or a wait did not finish within its timeout. */
export class ChainTimeoutError extends Error {
  static override readonly name = 'ChainTimeoutError'
  override name = 'ChainTimeoutError'
}

/** The node answered with an error that is neither a revert nor unreachability (bad nonce, underpriced, ...). */
export class ChainRequestError extends Error {
  static override readonly name = 'ChainRequestError'
  override name = 'ChainRequestError'
}

/** A transaction was sent but the client has no signer. */
export class NoSignerError extends Error {
  static override readonly name = 'NoSignerError'
  override name = 'NoSignerError'
}

/** The client needs either `rpcUrl` or `provider` (or a signer with a provider). */
export class NoProviderError extends Error {
  static override readonly name = 'NoProviderError'
  override name = 'NoProviderError'
}

/** The operation was aborted through its AbortSignal. */
export class AbortError extends Error {
  static override readonly name = 'AbortError'
  override name = 'AbortError'
  readonly code = 'ABORT_ERR'
}

/** The wallet cannot pay what it must (stake and gas). */
export class InsufficientFundsError extends Error {
  static override readonly name = 'InsufficientFundsError'
  override name = 'InsufficientFundsError'
}
