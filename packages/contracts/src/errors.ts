/**
 * Errors thrown by the TypeScript side of `@jobmesh/contracts`. One class per condition; branch on `err.name`
 * (it survives bundling and realm boundaries, unlike `instanceof`).
 */

/** The anvil binary for this platform could not be found (is `@foundry-rs/anvil` installed?). */
export class AnvilNotFoundError extends Error {
  static override readonly name = 'AnvilNotFoundError'
  override name = 'AnvilNotFoundError'
}

/** anvil exited, or did not print its listening address, before the start timeout. */
export class AnvilStartError extends Error {
  static override readonly name = 'AnvilStartError'
  override name = 'AnvilStartError'
}

/** The operation was aborted through its AbortSignal. */
export class AbortError extends Error {
  static override readonly name = 'AbortError'
  override name = 'AbortError'
  readonly code = 'ABORT_ERR'
}

/** The JSON-RPC endpoint did not answer (wrong URL, node down, timeout). */
export class RpcUnreachableError extends Error {
  static override readonly name = 'RpcUnreachableError'
  override name = 'RpcUnreachableError'
}

/**
 * The endpoint answered a JSON-RPC call with an error object: `method` is the call, `rpcMessage` and `code` are the
 * node's own.
 */
export class JsonRpcError extends Error {
  static override readonly name = 'JsonRpcError'
  override name = 'JsonRpcError'
  /** The JSON-RPC method that was refused (e.g. `eth_chainId`, `evm_revert`). */
  readonly method: string
  /** The `message` of the node's error object (the whole object as JSON when it has none). */
  readonly rpcMessage: string
  /** The `code` of the node's error object, when it is a number. */
  readonly code: number | undefined

  constructor (method: string, rpcMessage: string, code?: number, options?: ErrorOptions) {
    super(`${method} failed: ${rpcMessage}`, options)
    this.method = method
    this.rpcMessage = rpcMessage
    this.code = code
  }
}

/** A deployment transaction reverted or produced no contract. */
export class DeploymentFailedError extends Error {
  static override readonly name = 'DeploymentFailedError'
  override name = 'DeploymentFailedError'
}

/** A deployment file's text is not a deployment: not JSON, or a field missing or of the wrong type. */
export class InvalidDeploymentError extends Error {
  static override readonly name = 'InvalidDeploymentError'
  override name = 'InvalidDeploymentError'
}

/**
 * No JobEscrow contract answers at the deployment's escrow address on the endpoint's chain: `reason` `no-code` (no
 * contract at all there: a wrong address, or a deployment of another chain) or `not-an-escrow` (a contract that does not
 * answer JobEscrow's views, e.g. the NodeRegistry's address).
 */
export class EscrowNotFoundError extends Error {
  static override readonly name = 'EscrowNotFoundError'
  override name = 'EscrowNotFoundError'
  readonly address: string
  readonly reason: 'no-code' | 'not-an-escrow'

  constructor (address: string, reason: 'no-code' | 'not-an-escrow', chainId?: number, options?: ErrorOptions) {
    const chain = chainId === undefined ? 'this chain' : `chain ${chainId}`
    super(`no JobEscrow contract answers at ${address} on ${chain}: ${reason === 'no-code'
      ? 'there is no contract at that address'
      : 'the contract there is not a JobEscrow'} (is the deployment file the one of this chain's jobmesh contracts?)`, options)
    this.address = address
    this.reason = reason
  }
}

/** The deployment belongs to another chain than the runner is connected to. */
export class ChainMismatchError extends Error {
  static override readonly name = 'ChainMismatchError'
  override name = 'ChainMismatchError'
}

/** A PeerId key that the NodeRegistry cannot verify (it accepts Ed25519 PeerIds only). */
export class PeerKeyTypeError extends Error {
  static override readonly name = 'PeerKeyTypeError'
  override name = 'PeerKeyTypeError'
}

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

/** The decoded custom error of a reverted call (`ChainRevertError.errorName`), else undefined. */
export function revertName (err: unknown): string | undefined {
  return (err as Error | undefined)?.name === ChainRevertError.name ? (err as ChainRevertError).errorName : undefined
}

/** A call, a transaction or a wait did not finish within its timeout. */
export class ChainTimeoutError extends Error {
  static override readonly name = 'ChainTimeoutError'
  override name = 'ChainTimeoutError'
}

/**
 * A transaction this client sent was replaced in the pool by another of the wallet's (same nonce, mined instead), as
 * often as it was sent again: it was never mined, so nothing it would have done was done.
 */
export class TransactionReplacedError extends Error {
  static override readonly name = 'TransactionReplacedError'
  override name = 'TransactionReplacedError'
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

/** An incentive action on a deployment without an `IncentivePool` (one made before the pool existed). */
export class NoIncentivePoolError extends Error {
  static override readonly name = 'NoIncentivePoolError'
  override name = 'NoIncentivePoolError'
}

/** A model action on a deployment without a `ModelRegistry` (one made before the registry existed). */
export class NoModelRegistryError extends Error {
  static override readonly name = 'NoModelRegistryError'
  override name = 'NoModelRegistryError'
}

/** The client needs either `rpcUrl` or `provider` (or a signer with a provider). */
export class NoProviderError extends Error {
  static override readonly name = 'NoProviderError'
  override name = 'NoProviderError'
}

/** The wallet cannot pay what it must (stake and gas). */
export class InsufficientFundsError extends Error {
  static override readonly name = 'InsufficientFundsError'
  override name = 'InsufficientFundsError'
}

/**
 * The wallet is registered with another PeerId: another node (another data dir or machine) uses it. Two nodes on
 * one wallet would both take its verifier duties and race for its transaction nonces.
 */
export class WalletInUseError extends Error {
  static override readonly name = 'WalletInUseError'
  override name = 'WalletInUseError'
}

/**
 * The PeerId (the data dir's identity) is registered by another wallet: that wallet's node is this data dir, started
 * with another key (the registry binds a PeerId to one wallet; its `register` reverts `PeerIdTaken`).
 */
export class PeerIdInUseError extends Error {
  static override readonly name = 'PeerIdInUseError'
  override name = 'PeerIdInUseError'
}

/**
 * A registered node started with other hardware (`--vram`, `--gpu-model`) than the registry holds for it: the registry
 * keeps the hardware a node registered with (it draws verifiers and counts fitting nodes by it), so a profile naming
 * other hardware would tell DApps and peers the node fits jobs it is never drawn for (or the reverse).
 */
export class HardwareMismatchError extends Error {
  static override readonly name = 'HardwareMismatchError'
  override name = 'HardwareMismatchError'
}
