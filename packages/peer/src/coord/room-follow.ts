import { logger } from '@libp2p/logger'
import { DONE, LOCKED, countStates, isHandoff, judge } from './queue.js'
import { overheld } from './hold-bound.js'
import { checkComplete } from './room-complete.js'
import { isOwner, publish, satisfy } from './room-core.js'
import { countDrop, readRoomMessage } from './room-inbox.js'
import { chainOf, epochValid, leaseSigner } from './room-member.js'
import { onRequest, serve } from './room-serve.js'
import type { QueueState, Verdict } from './queue.js'
import type { RoomCore } from './room-core.js'
import type { RoomPubSubMessage } from './room-inbox.js'

const log = logger('jobmesh:room')

// The member half of a room: asks the owner for a turn, reads what arrives on the room topic, and follows the
// chain of snapshots (accepting a handoff makes this peer the owner). The epoch checks are room-member.ts.

/** Member: asks the owner for a turn when `next` is waiting. */
export function request (room: RoomCore): void {
  const want = room.waiter.want
  if (want == null || isOwner(room) || room.closed) {
    return
  }
  sendRequest(room, want)
}

/** Publishes a request for `want` items, carrying the items finished since the last one. */
export function sendRequest (room: RoomCore, want: number): void {
  room.lastRequest = room.clock()
  const done = room.doneOutbox
  room.doneOutbox = []
  room.components.metrics.requestsSent++
  log.trace('%s room %d: requests %d (%d subscribers known)', room.self.slice(-6), room.macroIndex, want,
    room.components.pubsub.getSubscribers?.(room.topic).length ?? -1)
  publish(room, { request: { macroIndex: room.macroIndex, done, want } })
}

/** The pubsub 'message' listener of the room. */
export function handle (room: RoomCore, msg: RoomPubSubMessage): void {
  if (room.closed) {
    return
  }
  const entry = readRoomMessage(msg, {
    topic: room.topic, self: room.self, macroIndex: room.macroIndex, size: room.size, maxBytes: room.maxBytes,
    counters: room.components.counters
  })
  if (entry.kind === 'ignore') {
    return
  }
  if (entry.from != null && entry.from === room.state?.owner) {
    // anything the owner sends (even a stale or reordered snapshot, or a request) shows it is alive
    room.silence.heard(room.clock())
  }
  const metrics = room.components.metrics
  switch (entry.kind) {
    case 'drop':
      countDrop(metrics, entry.reason)
      return
    case 'request':
      onRequest(room, entry.from, entry.request)
      return
    case 'snapshot':
      consider(room, entry.state, entry.from, false)
  }
}

/**
 * The acceptance rule (queue.ts `judge`) within the chain this member follows; a snapshot of a rival chain of the
 * same epoch is taken (`yield`: the CRDT kept its claim) or dropped as forged, whatever its turn (room-member.ts
 * `chainOf`).
 */
function verdictOf (room: RoomCore, next: QueueState, from: string): Verdict | 'yield' {
  switch (chainOf(room.epochCheck, room.state, room.epochRoot, next, from)) {
    case 'yield': return 'yield'
    case 'rival': return 'forged'
    default: return judge(room.state, next, from, (n, f) => epochValid(room.epochCheck, n, f))
  }
}

function consider (room: RoomCore, next: QueueState, from: string, fromBuffer: boolean): void {
  const metrics = room.components.metrics
  const verdict = verdictOf(room, next, from)
  switch (verdict) {
    case 'yield':
      log('%s room %d: follows the epoch\'s claim the CRDT kept (from %s)', room.self.slice(-6), room.macroIndex, from.slice(-6))
      accept(room, next)
      return
    case 'heartbeat':
      room.silence.heard(room.clock())
      return
    case 'stale':
      if (!fromBuffer) metrics.droppedStale++
      return
    case 'forged':
      if (!fromBuffer) metrics.droppedForged++
      log('%s room %d: forged snapshot from %s', room.self.slice(-6), room.macroIndex, from.slice(-6))
      return
    case 'future':
      if (!fromBuffer) {
        // a handoff of a later turn of the chain: the queue is being served, this peer only missed a handoff (a new
        // epoch whose lease has not synced yet, or a turn its sender claims for itself, says nothing of the owner)
        if (next.epoch === room.state?.epoch && isHandoff(next, from)) room.silence.heard(room.clock())
        room.future.add(next, from, room.clock())
      }
      return
    case 'accept':
      accept(room, next)
  }
}

function accept (room: RoomCore, next: QueueState): void {
  const wasOwner = isOwner(room)
  // the queue's first snapshot this peer sees, or a new epoch's: its owner may have dropped an earlier request
  const newQueue = room.state == null || room.state.epoch !== next.epoch
  if (next.macroLease != null) {
    room.epochRoot = leaseSigner(room.epochCheck, next.macroLease, next.epoch) ?? room.epochRoot
  } else if (room.state == null || next.epoch !== room.state.epoch) {
    room.epochRoot = undefined
  }
  room.state = next
  // a queue is open: requests remembered while a claim settled were for this peer's own (room-serve.ts)
  room.early = []
  room.silence.heard(room.clock())
  room.components.metrics.snapshotsAccepted++
  room.ownersSeen.add(next.owner)
  room.dispatch('snapshot', next)
  overheld(next, room.view, room.self, room.clock(), room.memory)
  drainFuture(room, false)
  const state = room.state
  if (state.owner === room.self) {
    if (!wasOwner) {
      room.dispatch('ownership', state)
    }
    // mark what this peer finished while it was not the owner
    for (const index of room.doneOutbox) {
      if (state.states[index] === LOCKED) {
        state.states[index] = DONE
        state.locks.delete(index)
      }
    }
    room.doneOutbox = []
    serve(room)
    return
  }
  checkComplete(room)
  if (room.waiter.want != null) {
    if (countStates(state.states).open === 0) {
      satisfy(room, [])
    } else if (!state.pending.includes(room.self) && (newQueue || room.clock() - room.lastRequest >= room.heartbeatMs / 4)) {
      request(room)
    }
  }
}

/** Applies a buffered snapshot that now continues the chain; after a heartbeat without the gap filling, the newest. */
export function drainFuture (room: RoomCore, timedOut: boolean): void {
  const next = room.future.next(room.state, (n, from) => { const v = verdictOf(room, n, from); return v === 'yield' ? 'accept' : v },
    room.clock(), timedOut ? room.heartbeatMs : undefined)
  if (next != null) accept(room, next)
}
