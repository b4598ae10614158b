/** Errors of replication. One class per condition; branch on `err.name`. */

/** A request or answer on the replication protocol is malformed or too large. */
export class ReplicationProtocolError extends Error {
  static override readonly name = 'ReplicationProtocolError'
  override name = 'ReplicationProtocolError'
}

/** The asked peer refused or failed to hold the content; `reason` is its answer. */
export class ReplicaRefusedError extends Error {
  static override readonly name = 'ReplicaRefusedError'
  override name = 'ReplicaRefusedError'
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
