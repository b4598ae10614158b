import { decodeMessage, messageKind } from './codec.js'
import { fromWire } from './queue.js'
import { countReceived } from '../protocol/index.js'
import type { CoordMessage } from './codec.js'
import type { QueueState } from './queue.js'
import type { TrafficCounters } from '../protocol/index.js'

/** A gossipsub message as rooms read it (StrictSign: `from` is set and verified by gossipsub). */
export interface RoomPubSubMessage {
  type: 'signed' | 'unsigned'
  topic: string
  data: Uint8Array
  from?: { toString(): string }
}

export interface RoomInboxInit {
  topic: string
  self: string
  macroIndex: number
  /** MicroJobs in the MacroJob (the state vector length). */
  size: number
  maxBytes: number
  counters?: TrafficCounters
}

/** What a message on a room topic is, before any queue rule is applied. */
export type RoomInboxEntry =
  /** Not for this room, or this peer's own message. */
  | { kind: 'ignore' }
  /** Unsigned (counted as forged), too large, or not a valid request or snapshot of this MacroJob. */
  | { kind: 'drop', from?: string, reason: 'forged' | 'oversized' | 'malformed' }
  | { kind: 'request', from: string, request: NonNullable<CoordMessage['request']> }
  | { kind: 'snapshot', from: string, state: QueueState }

/**
 * The inbox role of a room: checks and decodes one gossip message (size cap, protobuf, the MacroJob index, the state
 * vector's length and contents) into a request or a queue state. The queue rules (who may send what) are the room's.
 */
export function readRoomMessage (msg: RoomPubSubMessage, init: RoomInboxInit): RoomInboxEntry {
  if (msg.topic !== init.topic) {
    return { kind: 'ignore' }
  }
  if (msg.type !== 'signed' || msg.from == null) {
    return { kind: 'drop', reason: 'forged' }
  }
  const from = msg.from.toString()
  if (from === init.self) {
    return { kind: 'ignore' }
  }
  let decoded: CoordMessage
  try {
    decoded = decodeMessage(msg.data, init.maxBytes)
  } catch (err) {
    countReceived(init.counters, 'malformed', msg.data.byteLength, true)
    return { kind: 'drop', from, reason: (err as Error).name === 'MessageTooLargeError' ? 'oversized' : 'malformed' }
  }
  countReceived(init.counters, messageKind(decoded), msg.data.byteLength, true)
  if (decoded.request != null) {
    if (decoded.request.macroIndex !== init.macroIndex) {
      return { kind: 'drop', from, reason: 'malformed' }
    }
    return { kind: 'request', from, request: decoded.request }
  }
  if (decoded.snapshot == null) {
    return { kind: 'drop', from, reason: 'malformed' }
  }
  try {
    return { kind: 'snapshot', from, state: fromWire(decoded.snapshot, init.size, init.macroIndex) }
  } catch {
    return { kind: 'drop', from, reason: 'malformed' }
  }
}
