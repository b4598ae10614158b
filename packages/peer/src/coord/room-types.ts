import type { LeaseTable, Leases } from './leases.js'
import type { CoordMetrics } from './metrics.js'
import type { JobProgress } from './progress.js'
import type { QueueState } from './queue.js'
import type { RoomPubSubMessage } from './room-inbox.js'
import type { RecordVerifier } from './signing.js'
import type { GuardedPubSub } from '../crdt/index.js'
import type { TrafficCounters } from '../protocol/index.js'

/** The slice of gossipsub a room needs. */
export interface RoomPubSub extends Partial<GuardedPubSub> {
  subscribe(topic: string): void
  unsubscribe(topic: string): void
  publish(topic: string, data?: Uint8Array): Promise<unknown>
  /** Peers subscribed to a topic (the processor sizes its turns by the job's peers). */
  getSubscribers?(topic: string): unknown[]
  /** Peers gossipsub knows (a claim confirms with all of them while they are few: room-claim.ts `claimPeers`). */
  getPeers?(): unknown[]
  addEventListener(type: 'message', listener: (evt: CustomEvent<RoomPubSubMessage>) => void): void
  removeEventListener(type: 'message', listener: (evt: CustomEvent<RoomPubSubMessage>) => void): void
}

export interface RoomComponents {
  pubsub: RoomPubSub
  /** This peer's PeerId string. */
  peerId: string
  leases: Leases
  verifier: RecordVerifier
  /** Leases of the job's `macro` and `micro` maps. */
  macroLeases: LeaseTable
  microLeases: LeaseTable
  progress: JobProgress
  metrics: CoordMetrics
  clock?: () => number
  /**
   * When a message from `peer` about this job (any of its topics: rooms, `/macro`, the job doc's CRDT updates)
   * was last received. The owner is alive while it sends anything, not only snapshots.
   */
  lastSeen?(peer: string): number | undefined
  /** Counts the room's messages (benches, profiles). */
  counters?: TrafficCounters
  /**
   * Runs `lock` (which writes the MicroJob leases of a batch this peer locks for itself) in one CRDT transaction
   * together with this peer's unwritten results: one update per queue turn instead of two. Default: `lock` alone.
   */
  lockWith?(lock: () => void): void
  /** Who may publish on the room's topic (`CoordTopicGuardInit.author`). Default: anyone. */
  mayPublish?(peerId: string): Promise<boolean>
}

export interface RoomInit {
  jobId: string
  macroIndex: number
  macroId: string
  /** MicroJobs in this MacroJob. */
  size: number
  heartbeatMs?: number
  ownerTimeoutMs?: number
  maxBatch?: number
  maxMessageBytes?: number
  /**
   * The longest one MicroJob run may take (ms): how long another peer's locks are believed without a result
   * (hold-bound.ts, `holdLimit`). Default
   * `DEFAULT_RUN_LIMIT_MS` (30 s).
   */
  runLimitMs?: number
}

/** An item handed to this peer: run it and report it with {@link MacroRoom.done}. */
export interface LockedItem {
  macroIndex: number
  index: number
  /** MicroJob lease term (fencing token for the result). */
  leaseTerm: number
}

export interface RoomEvents {
  /** This peer became queue owner (`detail` = the new state). */
  ownership: QueueState
  /** A snapshot was accepted (any owner). */
  snapshot: QueueState
  /** Every item is done. */
  complete: { macroIndex: number }
  /** This peer took the queue over through the MacroJob lease. */
  failover: { epoch: number }
}
