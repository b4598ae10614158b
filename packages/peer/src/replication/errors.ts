/** Errors of replication. One class per condition; branch on `err.name`. */

/** A request or answer on the replication protocol is malformed or too large. */
export class ReplicationProtocolError extends Error {
  static override readonly name = 'ReplicationProtocolError'
  override name = 'ReplicationProtocolError'
}

/** The asked peer refused or failed to hold the content; `answer` is its own words. */
export class ReplicaRefusedError extends Error {
  static override readonly name = 'ReplicaRefusedError'
  override name = 'ReplicaRefusedError'
  /** What the replica answered (a remote peer's text, at most 500 characters); the message when refused here. */
  readonly answer: string
  /** The name of the error the replica refused with (`ReplicationBudgetError`...), when it said. */
  readonly refusal?: string

  constructor (message: string, options?: ErrorOptions & { answer?: string, refusal?: string }) {
    super(message, options)
    this.answer = options?.answer ?? message
    this.refusal = options?.refusal
  }
}

/** An `outputs` request came from a peer no wallet registered as a node: only nodes finalize, so none is held. */
export class UnregisteredSenderError extends Error {
  static override readonly name = 'UnregisteredSenderError'
  override name = 'UnregisteredSenderError'
}

/**
 * A request names a job in a state whose content is not replicated: an `outputs` request a job that is not Open (only a
 * job being finalized has outputs to replicate), an `inputs` request a job the escrow is done with (Released, Refunded).
 */
export class JobNotOpenError extends Error {
  static override readonly name = 'JobNotOpenError'
  override name = 'JobNotOpenError'
}

/**
 * An `outputs` request would make this peer hold more bytes than it accepts in one request, or from one sender in the
 * current window. A policy of the asked peer, not a fault of the content: the finalizer does not count it as a failure.
 */
export class ReplicationBudgetError extends Error {
  static override readonly name = 'ReplicationBudgetError'
  override name = 'ReplicationBudgetError'
}

/** Fewer peers than required confirmed they hold the content within the time allowed. */
export class NotEnoughReplicasError extends Error {
  static override readonly name = 'NotEnoughReplicasError'
  override name = 'NotEnoughReplicasError'
  readonly held: string[]

  constructor (message: string, held: string[]) {
    super(message)
    this.held = held
  }
}

/**
 * A peer that says it holds content did not prove it: its answer to a challenge over blocks of that content (each
 * hashed with a fresh nonce) was missing, wrong or late (`replication/hold-proof-client.ts`).
 */
export class HoldProofFailedError extends Error {
  static override readonly name = 'HoldProofFailedError'
  override name = 'HoldProofFailedError'
}

/** A peer that said it holds content disconnected before it proved it (its word alone does not count). */
export class HolderNotConnectedError extends Error {
  static override readonly name = 'HolderNotConnectedError'
  override name = 'HolderNotConnectedError'
}
