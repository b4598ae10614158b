/** Transaction origins. Local writes use any other origin (or none) and are persisted and broadcast. */
export const ORIGIN_STORAGE = Symbol('jobmesh:crdt:storage')
/** A gossiped update: persisted, not re-broadcast (gossipsub forwards it). */
export const ORIGIN_GOSSIP = Symbol('jobmesh:crdt:gossip')
/** A diff pulled from a sync responder: persisted, not re-broadcast (the network has it). */
export const ORIGIN_SYNC_PULL = Symbol('jobmesh:crdt:sync-pull')
/** A diff pushed by a sync initiator (a joiner's offline writes): persisted and re-broadcast. */
export const ORIGIN_SYNC_PUSH = Symbol('jobmesh:crdt:sync-push')
/** A diff pushed quietly (`confirm`, a subscriber's catch-up: the initiator's own writes, which it publishes itself): persisted, not re-broadcast. */
export const ORIGIN_SYNC_QUIET = Symbol('jobmesh:crdt:sync-quiet')
