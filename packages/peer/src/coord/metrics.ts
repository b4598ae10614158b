/** Counters of dropped and handled coordination traffic. Plain numbers, cheap to read. */
export interface CoordMetrics {
  /** Claimed sender is not the gossipsub `from`, or a bad record signature. */
  droppedForged: number
  /** Older than the kept snapshot. */
  droppedStale: number
  /** Not decodable or inconsistent (wrong MacroJob, bad state vector). */
  droppedMalformed: number
  /** Larger than the size cap. */
  droppedOversized: number
  /** Records in the CRDT that failed verification (treated as absent). */
  invalidRecords: number
  snapshotsSent: number
  snapshotsAccepted: number
  requestsSent: number
  handoffs: number
  failovers: number
  /** Items this peer, as owner, re-opened because another peer held them past the hold bound (hold-bound.ts). */
  holdsReleased: number
  /** Messages the topic validators rejected (not forwarded; the sender's score falls). */
  rejected: number
  /** Messages dropped because their sender was over its rate. */
  rateLimited: number
  /** Messages on a job's rooms or `/macro` from a peer that may not publish there (not a registered node). */
  droppedUnadmitted: number
  /** Messages dropped as replays of messages older than gossipsub's seen cache (crdt/replay-window.ts). */
  droppedReplayed: number
}

export function createMetrics (): CoordMetrics {
  return {
    droppedForged: 0,
    droppedStale: 0,
    droppedMalformed: 0,
    droppedOversized: 0,
    invalidRecords: 0,
    snapshotsSent: 0,
    snapshotsAccepted: 0,
    requestsSent: 0,
    handoffs: 0,
    failovers: 0,
    holdsReleased: 0,
    rejected: 0,
    rateLimited: 0,
    droppedUnadmitted: 0,
    droppedReplayed: 0
  }
}
