/** A command-line argument is malformed (exit code 2). */
export class UsageError extends Error {
  static override readonly name = 'UsageError'
  override name = 'UsageError'
}

/** `jobmesh status` found no running peer for the data dir. */
export class PeerNotRunningError extends Error {
  static override readonly name = 'PeerNotRunningError'
  override name = 'PeerNotRunningError'
}

/** `jobmesh status` found the peer of the data dir still starting (not ready yet). */
export class PeerStartingError extends Error {
  static override readonly name = 'PeerStartingError'
  override name = 'PeerStartingError'
}

/** Another `jobmesh start` already runs on this data dir. */
export class DataDirInUseError extends Error {
  static override readonly name = 'DataDirInUseError'
  override name = 'DataDirInUseError'
}

/** A signal (Ctrl-C) stopped a command before it was ready; what it had started is stopped (exit code 128 + the signal's number). */
export class InterruptedError extends Error {
  static override readonly name = 'InterruptedError'
  override name = 'InterruptedError'
  /** The signal that stopped it: SIGINT or SIGTERM. */
  readonly signal: NodeJS.Signals

  constructor (message: string, signal: NodeJS.Signals) {
    super(message)
    this.signal = signal
  }
}

/** `jobmesh exit` cannot start the wallet's exit: it is no registered node, or it asked to exit already. */
export class ExitRefusedError extends Error {
  static override readonly name = 'ExitRefusedError'
  override name = 'ExitRefusedError'
}

/**
 * `jobmesh withdraw` cannot return the stake yet: no exit was asked, the cooldown is not over, the node is a drawn
 * verifier, or part of its stake is a bond of results under verification (`reason`: the registry's error name).
 */
export class WithdrawRefusedError extends Error {
  static override readonly name = 'WithdrawRefusedError'
  override name = 'WithdrawRefusedError'
  readonly reason: string

  constructor (message: string, reason: string, options?: ErrorOptions) {
    super(message, options)
    this.reason = reason
  }
}

/** `jobmesh devnet`'s chain (its anvil) exited while the devnet ran: the devnet stopped (exit code 1). */
export class DevnetChainExitedError extends Error {
  static override readonly name = 'DevnetChainExitedError'
  override name = 'DevnetChainExitedError'
}
