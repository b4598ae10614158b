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
 * Failover: claims the MacroJob lease with a term above both the epoch this peer saw and the CRDT's (forced: the
 * owner's lease may still look live), confirmed and settled like any claim. Throws LeaseLostError when another
 * peer's claim won.
 */
export async function claimNextEpoch (macroLeases: LeaseTable, key: string, seenEpoch: number, signal: AbortSignal,
  peers: Pick<ClaimOptions, 'confirmWith' | 'rivals'> = {}): Promise<Lease> {
  const minTerm = Math.max(seenEpoch, macroLeases.get(key)?.term ?? 0) + 1
  return macroLeases.claim(key, { force: true, minTerm, signal, ...peers })
}
