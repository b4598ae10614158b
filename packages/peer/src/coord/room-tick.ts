import { logger } from '@libp2p/logger'
import { LeaseLostError } from './errors.js'
import { overheld } from './hold-bound.js'
import { checkComplete } from './room-complete.js'
import { isOwner } from './room-core.js'
import { claimPeers, claimQueue, releaseUnserved } from './room-claim.js'
import { claimNextEpoch, ownerGossipAt, topClaimOfAnother } from './room-failover.js'
import { drainFuture, request, sendRequest } from './room-follow.js'
import { createQueue, reconcileWithCrdt, serve } from './room-serve.js'
import { MAX_LEASE_TERM, SUSPECT_CONFIRM_MS } from './constants.js'
import type { RoomCore } from './room-core.js'

const log = logger('jobmesh:room')

/**
 * The room's timer: the owner's heartbeat and reconcile, the member's repeated request, the MacroJob lease
 * renewal, and the failover when the owner is silent (owner-silence.ts decides, room-failover.ts claims).
 */
export function tick (room: RoomCore): void {
  if (room.closed) {
    return
  }
  const now = room.clock()
  // time this process could not run (a starved event loop) is not silence of the owner: nothing could be read
  room.silence.tick(now)
  renewMacroLease(room, now)
  if (room.completed) {
    return
  }
  room.silence.watchLease(now, room.components.macroLeases.get(room.macroKey), {
    self: room.self,
    owner: room.state?.owner,
    epoch: room.state?.epoch ?? 0,
    isOpen: (lease) => room.components.leases.isOpen(lease, now)
  })
  if (isOwner(room)) {
    reconcileWithCrdt(room)
    if (now - room.lastPublish >= room.heartbeatMs) {
      serve(room)
    }
    checkComplete(room)
    return
  }
  drainFuture(room, true)
  // a member judges other peers' holds too (heartbeats of an unchanged queue are not taken as snapshots)
  if (room.state != null) overheld(room.state, room.view, room.self, now, room.memory)
  if (room.waiter.want != null && !room.state?.pending.includes(room.self) && now - room.lastRequest >= room.heartbeatMs / 2) {
    request(room)
  } else if (room.waiter.want == null && room.doneOutbox.length > 0) {
    sendRequest(room, 0)
  }
  watchOwner(room, now)
}

/**
 * A member's failover decision. A first silent verdict only marks the owner suspect; the decision is taken again
 * {@link SUSPECT_CONFIRM_MS} later, not a whole tick later, so that messages a busy loop held back are read first
 * (the poll phase runs before the timer) without adding half a heartbeat to every failover.
 */
function watchOwner (room: RoomCore, now: number): void {
  if (room.claiming || room.closed || room.completed || isOwner(room)) {
    return
  }
  const seen = ownerGossipAt(room.state?.owner, room.components.macroLeases.get(room.macroKey),
    (lease) => room.components.leases.isOpen(lease, now), room.components.lastSeen)
  const verdict = room.silence.decide(now, seen)
  if (verdict === 'failover') {
    void failover(room)
  } else if (verdict === 'suspect') {
    setTimeout(() => { watchOwner(room, room.clock()) }, SUSPECT_CONFIRM_MS)
  }
}

function renewMacroLease (room: RoomCore, now: number): void {
  if (releaseUnserved(room)) return
  const lease = room.components.macroLeases.get(room.macroKey)
  if (lease == null || lease.owner !== room.self || room.claiming || now - room.lastMacroRenew < room.components.leases.renewMs) {
    return
  }
  room.lastMacroRenew = now
  if (room.completed) {
    room.components.macroLeases.release(room.macroKey, lease.term)
  } else {
    room.components.macroLeases.renew(room.macroKey, lease.term)
  }
}

/** The owner went silent: claim the MacroJob lease with a higher term; the CRDT winner rebuilds the queue. */
async function failover (room: RoomCore): Promise<void> {
  const seenEpoch = room.state?.epoch ?? 0
  const now = room.clock()
  const other = topClaimOfAnother(room.components.macroLeases.get(room.macroKey), room.epochRoot, room.self,
    (lease) => room.components.leases.isOpen(lease, now))
  if (other != null) {
    log('%s room %d: %s claimed the top epoch first, following it', room.self.slice(-6), room.macroIndex, other.owner.slice(-6))
    room.silence.heard(now)
    return
  }
  try {
    log('%s room %d: owner %s silent, claiming the next epoch', room.self.slice(-6), room.macroIndex, room.state?.owner.slice(-6))
    const lease = await claimQueue(room, async () => claimNextEpoch(room.components.macroLeases, room.macroKey, seenEpoch, room.abort.signal, claimPeers(room, { failover: true })))
    // at the largest term a claim takes the term over (leases.ts): the epoch it won is the one this peer follows
    const passed = room.state != null && room.state.owner !== room.self &&
      (room.state.epoch > lease.term || (room.state.epoch === lease.term && lease.term < MAX_LEASE_TERM))
    if (room.closed || passed) {
      return
    }
    room.components.metrics.failovers++
    createQueue(room, lease)
    room.dispatch('failover', { epoch: lease.term })
  } catch (err) {
    if ((err as Error).name !== LeaseLostError.name && !room.closed) {
      log.error('failover: %e', err)
    }
  }
}
