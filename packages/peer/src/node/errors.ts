/** The data dir cannot be created, read or written, or is not a directory. */
export class InvalidDataDirError extends Error {
  static override readonly name = 'InvalidDataDirError'
  override name = 'InvalidDataDirError'
}

/** A listen or bootstrap multiaddr does not parse, or a bootstrap address lacks its `/p2p/<peerId>` or names no peer id there. */
export class InvalidMultiaddrError extends Error {
  static override readonly name = 'InvalidMultiaddrError'
  override name = 'InvalidMultiaddrError'
}

/** The identity file exists but does not hold a protobuf-encoded Ed25519 private key. */
export class InvalidIdentityError extends Error {
  static override readonly name = 'InvalidIdentityError'
  override name = 'InvalidIdentityError'
}

/** libp2p could not listen on a listen address (no transport for it, or its port in use); the message names each. */
export class ListenError extends Error {
  static override readonly name = 'ListenError'
  override name = 'ListenError'
}

/**
 * None of the bootstrap peers answered before a peer would enter the verifier draw: a node that reaches no other peer
 * cannot fetch what a verification needs, and a drawn verifier that cannot commit is slashed.
 */
export class NoPeerReachableError extends Error {
  static override readonly name = 'NoPeerReachableError'
  override name = 'NoPeerReachableError'
}
