import { lastUsed } from './last-used.js'

/**
 * Old gossip told from new by its author's sequence numbers. gossipsub drops a copy of a message it saw within its
 * seen cache's TTL (2 min), but after that a relay can publish a recorded message of someone else again: it is signed
 * by its author, so it passes every check and counts against that author's rate (docs/crdt.md, Replayed gossip).
 * gossipsub's seqno is a counter that rises with every message an author publishes (seeded from the wall clock at
 * start, so a restarted peer goes on above it). A message is old when its seqno is at or below one this window saw
 * from the same author at least `lagMs` earlier: a message of an honest author never arrives that long after a later
 * one of it (gossip repair asks for messages of the last few heartbeats only).
 */
export interface ReplayWindow {
  /** Whether a message of `author` with `seqno` may be new; false: it is a replay. Records nothing of it. */
  fresh(author: string, seqno: bigint, now?: number): boolean
  /**
   * Records a message found valid. Only valid ones: a flood of messages from fresh keys that fail validation (not
   * registered nodes, forged) never enters the table, so it cannot push out the authors whose replays it refuses.
   */
  seen(author: string, seqno: bigint, now?: number): void
}

export interface ReplayWindowInit {
  /** How long a seqno must have been seen before older ones count as replays (ms). */
  lagMs: number
  /** Authors remembered; past this the one heard from longest ago is forgotten (valid authors only). */
  maxAuthors?: number
}

const DEFAULT_MAX_AUTHORS = 10_000

interface AuthorSeqnos {
  /** Highest seqno seen, and when it was first seen. */
  max: bigint
  maxAt: number
  /** A former highest seqno waiting to become the mark once it is `lagMs` old. */
  pending?: bigint
  pendingAt: number
  /** Seqnos at or below this one are replays. */
  mark: bigint
}

/**
 * A window per author. Its mark is a seqno seen between `lagMs` and `2 x lagMs` ago (or the highest one, once the
 * author has been quiet for `lagMs`), so a replay is refused at most `2 x lagMs` after the original arrived: with
 * `lagMs` a quarter of gossipsub's seen TTL no replay passes between the two.
 */
export function replayWindow (init: ReplayWindowInit): ReplayWindow {
  const authors = lastUsed<AuthorSeqnos>(init.maxAuthors ?? DEFAULT_MAX_AUTHORS)
  return {
    fresh (author, seqno, now = Date.now()) {
      const known = authors.peek(author)
      if (known == null) return true
      raiseMark(known, now, init.lagMs)
      return seqno > known.mark
    },
    seen (author, seqno, now = Date.now()) {
      const known = authors.peek(author)
      if (known == null) {
        authors.touch(author, () => ({ max: seqno, maxAt: now, pendingAt: now, mark: -1n }))
        return
      }
      authors.touch(author, () => known)
      raiseMark(known, now, init.lagMs)
      if (seqno <= known.max) return
      if (known.pending == null) {
        known.pending = known.max
        known.pendingAt = known.maxAt
      }
      known.max = seqno
      known.maxAt = now
    }
  }
}

function raiseMark (seen: AuthorSeqnos, now: number, lagMs: number): void {
  if (now - seen.maxAt >= lagMs) {
    seen.mark = seen.max
    seen.pending = undefined
    return
  }
  if (seen.pending != null && now - seen.pendingAt >= lagMs) {
    if (seen.pending > seen.mark) seen.mark = seen.pending
    seen.pending = undefined
  }
}
