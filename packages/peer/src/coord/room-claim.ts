import { logger } from '@libp2p/logger'
import { CONFIRM_ALL_MAX_PEERS, FIRST_CLAIM_CONFIRM_ALL_MAX_PEERS, FIRST_CLAIM_SETTLE_MS } from './constants.js'
import type { ClaimOptions, Lease } from './leases.js'
import type { RoomCore } from './room-core.js'

const log = logger('jobmesh:room')

/**
 * The claiming role of a room: the MacroJob lease claimed for its queue, by the room choice (a first claim) or by a
 * failover. While the claim settles the room has no owner to judge (or it is the one failing over), so the failover
 * role stands aside, and the lease being settled is neither renewed nor given up; afterwards the owner's silence
 * counts from the claim's end.
 */
export async function claimQueue (room: RoomCore, claim: () => Promise<Lease>): Promise<Lease> {
  room.claiming = true
  try {
    return await claim()
  } catch (err) {
    room.early = [] // lost or aborted: no queue of this peer's will serve them
    throw err
  } finally {
    room.claiming = false
    // what the claim wrote, while the CRDT still shows it: won, or written before the claim was aborted
    const lease = room.components.macroLeases.get(room.macroKey)
    if (lease?.owner === room.self) room.claimedTerm = lease.term
    room.silence.heard(room.clock())
    // a room closed while its claim settled has no tick left to release what the claim wrote
    if (room.closed) releaseUnserved(room)
  }
}

/**
 * Whom a claim of this room's MacroJob confirms with (`ClaimOptions`). Its possible rivals are the subscribers of
 * its room topic: a claimant subscribes to the room before it writes its lease, and gossipsub sends a peer's
 * subscription and its later messages on one stream, so a rival's claim never arrives before its subscription.
 * While gossipsub knows few peers the claim confirms with every one as well (the rivals' confirm beside it): a claim
 * whose confirm reached every peer settles in about twice its confirm (leases.ts), not the whole window. Beyond, with
 * the rivals only, and the other peers are left to the whole settle window. "Few" is CONFIRM_ALL_MAX_PEERS for a
 * failover's claim (`failover`: on a running job the peers answer at once) and FIRST_CLAIM_CONFIRM_ALL_MAX_PEERS for
 * a room's first claim, made at a job's start when every peer of the job is opening it: with 7 other peers the
 * confirm took 0.2-0.6 s and never settled a claim before the window did, while its exchanges delayed everyone's
 * start (docs/coordination.md, Leases). Neither when the pubsub cannot list them. A first claim among at most
 * CONFIRM_ALL_MAX_PEERS peers settles in FIRST_CLAIM_SETTLE_MS instead of the whole window: peers that know each
 * other agree on the job's start order, which keeps its first claimants apart.
 */
export function claimPeers (room: RoomCore, options: { failover?: boolean } = {}): Pick<ClaimOptions, 'confirmWith' | 'rivals' | 'settleMs'> {
  const { pubsub } = room.components
  const known = pubsub.getPeers?.().length
  const subscribers = pubsub.getSubscribers?.(room.topic).map(String)
  if (known == null || subscribers == null) return {}
  const failover = options.failover === true
  const few = failover ? CONFIRM_ALL_MAX_PEERS : FIRST_CLAIM_CONFIRM_ALL_MAX_PEERS
  const peers = known <= few ? { rivals: subscribers } : { confirmWith: subscribers }
  return !failover && known <= CONFIRM_ALL_MAX_PEERS ? { ...peers, settleMs: FIRST_CLAIM_SETTLE_MS } : peers
}

/**
 * A MacroJob lease this room claimed is unserved when no queue of its epoch is open here: a claim that won but was
 * not opened (a rival announced the room while it settled, the room closed, a failover found a newer epoch). Nobody
 * would renew it, and for up to a lease length every other peer would see the MacroJob as being opened by this peer
 * and wait for a queue that never comes. Only the room's own claims count: a peer that opened an epoch, left its
 * room and joins it again (a new room, no queue yet) is a member of the queue its lease still stands behind.
 */
export function unservedLease (room: RoomCore): Lease | undefined {
  const lease = room.components.macroLeases.get(room.macroKey)
  if (room.claiming || lease == null || lease.owner !== room.self || lease.term !== room.claimedTerm) return undefined
  if (room.components.leases.isOpen(lease, room.clock())) return undefined
  return room.state == null || room.state.epoch < lease.term ? lease : undefined
}

/** Releases an {@link unservedLease}: members then fail over, or other peers claim the MacroJob, at once. */
export function releaseUnserved (room: RoomCore): boolean {
  const lease = unservedLease(room)
  if (lease == null) return false
  log('%s room %d: releasing MacroJob lease term %d (no queue of it here)', room.self.slice(-6), room.macroIndex, lease.term)
  room.components.macroLeases.release(room.macroKey, lease.term)
  return true
}
