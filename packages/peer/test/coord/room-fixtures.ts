import type { Lease } from '../../src/coord/leases.js'
import type { QueueState } from '../../src/coord/queue.js'
import type { QueueView } from '../../src/coord/room-owner.js'

// Fixtures of the room role tests (room-roles.test.ts, room-claim.test.ts): plain-data stand-ins for the CRDT and the
// queue state.

export const LEASE_MS = 15_000
export const GRACE_MS = 17_000

/** A CRDT view over plain maps: results by index, leases by index; a lease is open after expiresAt (no skew here). */
export function crdt (): QueueView & { results: Set<number>, leases: Map<number, Lease> } {
  const results = new Set<number>()
  const leases = new Map<number, Lease>()
  return {
    results,
    leases,
    hasResult: (i) => results.has(i),
    lease: (i) => leases.get(i),
    isOpen: (lease, now) => lease.expiresAt === 0 || now > lease.expiresAt,
    graceMs: GRACE_MS
  }
}

export const lease = (owner: string, term: number, expiresAt: number): Lease => ({ owner, term, expiresAt }) as Lease

export function queue (size: number, overrides: Partial<QueueState> = {}): QueueState {
  return {
    macroIndex: 0, epoch: 1, term: 0, owner: 'a', prevOwner: 'a', version: 0,
    states: new Uint8Array(size), locks: new Map(), pending: [], ...overrides
  }
}
