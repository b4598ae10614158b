/**
 * Traffic counters one peer keeps of its authenticated traffic (benches, profiles, `jobmesh status`): gossip
 * messages sent and received per kind, and the Ed25519 operations behind them. The coordination layer and the
 * CRDT store receive one as an optional component and count where they publish, receive and verify, so the numbers
 * are the real code paths, not estimates.
 */
export interface TrafficKindCounters {
  sent: number
  received: number
  bytesSent: number
  bytesReceived: number
}

export interface TrafficCounters {
  /** Gossip messages this peer published (each is delivered to every subscriber of its topic). */
  messagesSent: number
  bytesSent: number
  /** Gossip messages delivered to this peer. */
  messagesReceived: number
  bytesReceived: number
  /**
   * Signed gossip messages received. gossipsub (StrictSign) verifies the signature of each first-seen message
   * exactly once before it delivers it (duplicates are dropped by message id before validation), so this is the
   * number of message signature verifications.
   */
  messageVerifications: number
  /** Ed25519 verifications of signed records (a record verifier's cache misses). */
  recordVerifications: number
  /** Records this peer signed (leases, results, announcements). */
  recordSignatures: number
  /** Per message kind (`doc`, `snapshot`, `request`, `room`, `completed`, ...). */
  kinds: Record<string, TrafficKindCounters>
}

export function createTrafficCounters (): TrafficCounters {
  return {
    messagesSent: 0,
    bytesSent: 0,
    messagesReceived: 0,
    bytesReceived: 0,
    messageVerifications: 0,
    recordVerifications: 0,
    recordSignatures: 0,
    kinds: {}
  }
}

function kindOf (counters: TrafficCounters, kind: string): TrafficKindCounters {
  let k = counters.kinds[kind]
  if (k == null) {
    k = { sent: 0, received: 0, bytesSent: 0, bytesReceived: 0 }
    counters.kinds[kind] = k
  }
  return k
}

/** Counts one published gossip message of `bytes` bytes. */
export function countSent (counters: TrafficCounters | undefined, kind: string, bytes: number): void {
  if (counters == null) return
  counters.messagesSent++
  counters.bytesSent += bytes
  const k = kindOf(counters, kind)
  k.sent++
  k.bytesSent += bytes
}

/** Counts one delivered gossip message; a signed one was verified once by gossipsub. */
export function countReceived (counters: TrafficCounters | undefined, kind: string, bytes: number, signed: boolean): void {
  if (counters == null) return
  counters.messagesReceived++
  counters.bytesReceived += bytes
  if (signed) counters.messageVerifications++
  const k = kindOf(counters, kind)
  k.received++
  k.bytesReceived += bytes
}
