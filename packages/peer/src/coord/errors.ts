/** A coordination message exceeds the size cap. */
export class MessageTooLargeError extends Error {
  static override readonly name = 'MessageTooLargeError'
  override readonly name = 'MessageTooLargeError'
}

/** A coordination message or record could not be decoded. */
export class MalformedMessageError extends Error {
  static override readonly name = 'MalformedMessageError'
  override readonly name = 'MalformedMessageError'
}

/** A lease could not be claimed because another peer holds it. */
export class LeaseHeldError extends Error {
  static override readonly name = 'LeaseHeldError'
  override readonly name = 'LeaseHeldError'
}

/** A lease claim lost the race: after the settle window another peer held it. */
export class LeaseLostError extends Error {
  static override readonly name = 'LeaseLostError'
  override readonly name = 'LeaseLostError'
}

/** The room was closed while an operation waited on it. */
export class RoomClosedError extends Error {
  static override readonly name = 'RoomClosedError'
  override readonly name = 'RoomClosedError'
}

/** A MacroJob's leases or results were written while its doc is not open here (coord/macro-docs.ts). */
export class MacroDocNotOpenError extends Error {
  static override readonly name = 'MacroDocNotOpenError'
  override readonly name = 'MacroDocNotOpenError'
}
