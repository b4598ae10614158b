import { decodeMessage, messageKind } from './codec.js'
import { fromWire } from './queue.js'
import { countReceived } from '../protocol/index.js'
import type { CoordMessage } from './codec.js'
import type { QueueState } from './queue.js'
import type { CoordMetrics } from './metrics.js'
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

/** Why a coordination message was dropped before any rule of its topic was applied. */
export type DropReason = 'forged' | 'oversized' | 'malformed'

/** A coordination message (any topic) from another peer, decoded; or why it is not read. */
export type CoordInboxEntry =
  /** This peer's own message. */
  | { kind: 'ignore' }
  | { kind: 'drop', from?: string, reason: DropReason }
  | { kind: 'message', from: string, message: CoordMessage }

/**
 * Checks and decodes one coordination message of any topic (`/jobs`, `/macro`, a room): unsigned, this peer's own,
 * too large or not protobuf; counted in the traffic counters by kind.
 */
export function readCoordMessage (msg: RoomPubSubMessage, init: Pick<RoomInboxInit, 'self' | 'maxBytes' | 'counters'>): CoordInboxEntry {
  if (msg.type !== 'signed' || msg.from == null) {
    return { kind: 'drop', reason: 'forged' }
  }
  const from = msg.from.toString()
  if (from === init.self) {
    return { kind: 'ignore' }
  }
  let message: CoordMessage
  try {
    message = decodeMessage(msg.data, init.maxBytes)
  } catch (err) {
    countReceived(init.counters, 'malformed', msg.data.byteLength, true)
    return { kind: 'drop', from, reason: (err as Error).name === 'MessageTooLargeError' ? 'oversized' : 'malformed' }
  }
  countReceived(init.counters, messageKind(message), msg.data.byteLength, true)
  return { kind: 'message', from, message }
}

/** Counts a dropped coordination message in the metric of its reason. */
export function countDrop (metrics: Pick<CoordMetrics, 'droppedForged' | 'droppedOversized' | 'droppedMalformed'>, reason: DropReason): void {
  if (reason === 'forged') metrics.droppedForged++
  else if (reason === 'oversized') metrics.droppedOversized++
  else metrics.droppedMalformed++
}

/** What a message on a room topic is, before any queue rule is applied. */
export type RoomInboxEntry =
  /** Not for this room, or this peer's own message. */
  | { kind: 'ignore' }
  /** Unsigned (counted as forged), too large, or not a valid request or snapshot of this MacroJob. */
  | { kind: 'drop', from?: string, reason: DropReason }
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
  const read = readCoordMessage(msg, init)
  if (read.kind !== 'message') {
    return read
  }
  const { from, message: decoded } = read
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
