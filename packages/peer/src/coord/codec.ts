import { DEFAULT_MAX_MESSAGE_BYTES } from './constants.js'
import { MalformedMessageError, MessageTooLargeError } from './errors.js'
import { CoordMessage } from './pb/coord.js'

export type { CoordMessage }

/** Encodes a coordination message; throws MessageTooLargeError above the cap. */
export function encodeMessage (msg: Partial<CoordMessage>, maxBytes = DEFAULT_MAX_MESSAGE_BYTES): Uint8Array {
  const bytes = CoordMessage.encode(msg)
  if (bytes.byteLength > maxBytes) {
    throw new MessageTooLargeError(`message of ${bytes.byteLength} bytes exceeds ${maxBytes}`)
  }
  return bytes
}

/**
 * Decodes a coordination message. Checks the size before parsing (MessageTooLargeError) and caps repeated
 * fields (MalformedMessageError on anything undecodable).
 */
export function decodeMessage (bytes: Uint8Array, maxBytes = DEFAULT_MAX_MESSAGE_BYTES): CoordMessage {
  if (bytes.byteLength > maxBytes) {
    throw new MessageTooLargeError(`message of ${bytes.byteLength} bytes exceeds ${maxBytes}`)
  }
  try {
    return CoordMessage.decode(bytes)
  } catch (err) {
    throw new MalformedMessageError(`undecodable message: ${(err as Error).message}`)
  }
}

/** The kind of a coordination message (its first set field), for traffic counters. */
export function messageKind (msg: Partial<CoordMessage>): string {
  for (const [field, value] of Object.entries(msg)) {
    if (value != null) return field
  }
  return 'empty'
}
