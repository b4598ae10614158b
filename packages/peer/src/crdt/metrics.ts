/** Counters of a DocStore (monotonic since creation). */
export interface DocStoreMetrics {
  /** Remote updates (gossip or sync) applied to a doc. */
  updatesApplied: number
  /** Remote updates dropped: bad framing, undecodable Yjs, or Yjs refused them. */
  updatesRejected: number
  /** Updates published on gossipsub. */
  updatesPublished: number
  /** Local updates too big for gossipsub, pushed over the sync stream instead. */
  updatesOversized: number
  /** Sync exchanges this peer answered. */
  syncServed: number
  /** ... of which for a doc not open here, from its stored state (a closed doc: read-only). */
  syncServedClosed: number
  /** Sync exchanges this peer started and finished. */
  syncCompleted: number
  /** Sync exchanges that failed (timeout, closed stream, protocol error). */
  syncFailed: number
  /** Sync exchanges answered "not open" by the remote. */
  syncNotFound: number
  /** Diff bytes received / sent over sync streams. */
  syncBytesIn: number
  syncBytesOut: number
  /** Updates written to the datastore, and compactions done. */
  updatesPersisted: number
  compactions: number
  /** Pulls started because a gossiped update left a doc with missing dependencies. */
  pendingPulls: number
  /** Gossip messages on doc topics rejected by the topic validator (not forwarded; the sender's score falls). */
  gossipRejected: number
  /** ... of which: larger than the largest update, not a framed Yjs update, from a peer not admitted to the doc. */
  gossipOversized: number
  gossipMalformed: number
  gossipUnauthorized: number
  /** Gossip messages dropped (ignored, not penalized) because their sender was over its rate. */
  gossipRateLimited: number
  /** Gossip messages dropped (ignored) as replays of messages older than gossipsub's seen cache (replay-window.ts). */
  gossipReplayed: number
  /** Remote changes (gossip or sync) the doc's guard forbade and this store undid (docs/crdt.md, Ownership). */
  guardViolations: number
  /** Sync exchanges refused, and diffs dropped, because the other peer is not admitted to the doc or its diff is refused. */
  syncRefused: number
}

export function createMetrics (): DocStoreMetrics {
  return {
    updatesApplied: 0,
    updatesRejected: 0,
    updatesPublished: 0,
    updatesOversized: 0,
    syncServed: 0,
    syncServedClosed: 0,
    syncCompleted: 0,
    syncFailed: 0,
    syncNotFound: 0,
    syncBytesIn: 0,
    syncBytesOut: 0,
    updatesPersisted: 0,
    compactions: 0,
    pendingPulls: 0,
    gossipRejected: 0,
    gossipOversized: 0,
    gossipMalformed: 0,
    gossipUnauthorized: 0,
    gossipRateLimited: 0,
    gossipReplayed: 0,
    guardViolations: 0,
    syncRefused: 0
  }
}
