import { microKey } from './keys.js'
import { DONE } from './queue.js'
import { isOwner, publishState, satisfy } from './room-core.js'
import type { RoomCore } from './room-core.js'

/** A MicroJob result arrived in the CRDT (`microjob:done` of the progress table). */
export function crdtDone (room: RoomCore, key: string): void {
  const dot = key.indexOf('.')
  if (Number(key.slice(0, dot)) !== room.macroIndex) {
    return
  }
  const index = Number(key.slice(dot + 1))
  const state = room.state
  if (state != null && isOwner(room) && state.states[index] !== DONE) {
    // published with the next handoff or heartbeat (see done)
    state.states[index] = DONE
    state.locks.delete(index)
    state.version++
  }
  checkComplete(room)
}

/** Completes the room once every item of the MacroJob has a result in the CRDT. */
export function checkComplete (room: RoomCore): void {
  if (room.completed) {
    return
  }
  // the per-MacroJob count is a cheap filter; the exact check runs only when it could pass (a signed result
  // under an out-of-range key would count, but not match an index of this MacroJob)
  const byCrdt = (): boolean => {
    if (room.components.progress.doneIn(room.macroIndex) < room.size) return false
    for (let i = 0; i < room.size; i++) {
      if (!room.components.progress.has(microKey(room.macroIndex, i))) return false
    }
    return true
  }
  // only the CRDT completes a room: an item the queue marks done without a result is re-opened by reconcile
  if (byCrdt()) {
    room.completed = true
    if (isOwner(room)) {
      publishState(room)
    }
    satisfy(room, [])
    room.dispatch('complete', { macroIndex: room.macroIndex })
  }
}
