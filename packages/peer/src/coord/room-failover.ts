import { MAX_LEASE_TERM } from './constants.js'
import type { ClaimOptions, Lease, LeaseTable } from './leases.js'

/**
 * When the room last heard its owner through other gossip (any topic of the job, the processor's `lastSeen`). That
 * counts only while the owner's MacroJob lease is live: a process restarted under the same PeerId gossips, but it
 * lost the queue and never renews the lease, so it must not hold the room.
 */
export function ownerGossipAt (owner: string | undefined, lease: Lease | undefined, leaseOpen: (lease: Lease) => boolean,
  lastSeen: ((peer: string) => number | undefined) | undefined): number | undefined {
  if (owner == null || lease == null || lease.owner !== owner || leaseOpen(lease)) return undefined
  return lastSeen?.(owner)
}

/** The live MacroJob lease of a later epoch than `epoch` held by another peer: the queue of `epoch` is superseded. */
export function supersedingLease (lease: Lease | undefined, epoch: number, self: string, leaseOpen: (lease: Lease) => boolean): Lease | undefined {
  if (lease == null || lease.term <= epoch || lease.owner === self || leaseOpen(lease)) return undefined
  return lease
}

/**
 * The MacroJob lease of this very epoch held by another peer than the epoch's root (the signer of the lease its
 * first snapshot carried): two claims of one term both settled before the CRDT converged (at the largest term every
 * claim takes the same one, leases.ts `nextTerm`) and the CRDT kept the other. The chain of `root` has lost its
 * claim: its owner stands down (room-serve.ts), its members yield to the kept one (room-member.ts `chainOf`).
 */
export function outvotingLease (lease: Lease | undefined, epoch: number, root: string | undefined): Lease | undefined {
  if (lease == null || root == null || lease.term !== epoch || lease.owner === root) return undefined
  return lease
}

/**
 * At the largest term a failover cannot pass another peer's claim, only take it over (leases.ts `nextTerm`), and two
 * settled claims of one epoch make two owners of it. A live claim of the top term by another peer than the root of
 * the chain this peer follows (and than itself) is another member's failover of the same silent owner: this peer
 * follows that epoch instead of claiming it too.
 */
export function topClaimOfAnother (lease: Lease | undefined, root: string | undefined, self: string,
  leaseOpen: (lease: Lease) => boolean): Lease | undefined {
  if (lease == null || lease.term !== MAX_LEASE_TERM || lease.owner === self || lease.owner === root || leaseOpen(lease)) return undefined
  return lease
}

/**
 * Failover: claims the MacroJob lease with a term above both the epoch this peer saw and the CRDT's (forced: the
 * owner's lease may still look live), confirmed and settled like any claim. Throws LeaseLostError when another
 * peer's claim won.
 */
export async function claimNextEpoch (macroLeases: LeaseTable, key: string, seenEpoch: number, signal: AbortSignal,
  peers: Pick<ClaimOptions, 'confirmWith' | 'rivals'> = {}): Promise<Lease> {
  const minTerm = Math.max(seenEpoch, macroLeases.get(key)?.term ?? 0) + 1
  return macroLeases.claim(key, { force: true, minTerm, signal, ...peers })
}
