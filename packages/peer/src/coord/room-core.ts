import { logger } from '@libp2p/logger'
import { encodeMessage, messageKind } from './codec.js'
import { toWire } from './queue.js'
import { countSent } from '../protocol/index.js'
import type { CoordMessage } from './codec.js'
import type { OwnerSilence } from './owner-silence.js'
import type { QueueState } from './queue.js'
import type { EpochCheck, FutureSnapshots } from './room-member.js'
import type { OwnerMemory, QueueView } from './room-owner.js'
import type { LockedItem, RoomComponents, RoomEvents } from './room-types.js'
import type { TurnWaiter } from './room-waiter.js'

const log = logger('jobmesh:room')

/**
 * The state of one MacroJob room that its owner and member halves share (room-serve.ts, room-follow.ts,
 * room-complete.ts, room-tick.ts); {@link MacroRoom} creates it and keeps the public API.
 */
export interface RoomCore {
  readonly components: RoomComponents
  readonly clock: () => number
  readonly self: string
  readonly macroIndex: number
  readonly size: number
  readonly topic: string
  readonly heartbeatMs: number
  readonly maxBatch: number
  readonly maxBytes: number
  readonly macroKey: string
  /** Checks of the MacroJob lease behind a snapshot's epoch (room-member.ts). */
  readonly epochCheck: EpochCheck
  /** The owner's reads of the CRDT (room-owner.ts) and what it remembers between heartbeats. */
  readonly view: QueueView
  readonly memory: OwnerMemory
  readonly future: FutureSnapshots
  /** The caller of `next` waiting for a turn. */
  readonly waiter: TurnWaiter
  /** The failover role: when the queue was last heard from, and whether its silence is real. */
  readonly silence: OwnerSilence
  /** Every owner this peer has seen accepted, in order (observability and tests). */
  readonly ownersSeen: Set<string>
  readonly abort: AbortController
  state: QueueState | undefined
  doneOutbox: number[]
  lastRequest: number
  lastPublish: number
  flushScheduled: boolean
  /** A claim of the MacroJob lease for this room is settling (room-claim.ts). */
  claiming: boolean
  /** Peers that asked for a turn while this room's claim settled, before it had a queue (room-owner.ts `earlyRequest`). */
  early: string[]
  /** The term of the MacroJob lease this room last won (room-claim.ts). */
  claimedTerm: number | undefined
  closed: boolean
  completed: boolean
  lastMacroRenew: number
  /** The peer that opened the current epoch, when known. */
  epochRoot: string | undefined
  /** Dispatches a room event to the room's listeners. */
  dispatch<K extends keyof RoomEvents & string>(type: K, detail: RoomEvents[K]): void
}

export function isOwner (room: RoomCore): boolean {
  return room.state?.owner === room.self
}

export function satisfy (room: RoomCore, items: LockedItem[]): void {
  room.waiter.satisfy(items)
}

export function publish (room: RoomCore, msg: Partial<CoordMessage>): void {
  let bytes: Uint8Array
  try {
    bytes = encodeMessage(msg, room.maxBytes)
  } catch (err) {
    log.error('cannot encode: %e', err)
    return
  }
  countSent(room.components.counters, messageKind(msg), bytes.byteLength)
  room.components.pubsub.publish(room.topic, bytes).catch((err: Error) => {
    log('publish on %s failed: %s', room.topic, err.message)
  })
}

export function publishState (room: RoomCore): void {
  const state = room.state
  if (state == null || room.closed) {
    return
  }
  room.lastPublish = room.clock()
  room.components.metrics.snapshotsSent++
  publish(room, { snapshot: toWire(state) })
}
