import { DEFAULT_ASK_AHEAD_MS, DEFAULT_TURN_MS, DEFAULT_WANT, MAX_WANT, TURN_MS_PER_PEER } from './constants.js'

/** Weight of the newest run time in the running mean. */
const ALPHA = 0.3

/**
 * How many MicroJobs a peer asks for per queue turn in one job: about `turnMs` of work at the mean run time measured
 * here (`DEFAULT_WANT` before the first MicroJob ends), between 1 and `max`. Every message of a turn (the request, the
 * snapshot, the CRDT update) is paid once per turn, so short MicroJobs go in big turns; long ones go one or a few at a
 * time, which keeps a turn from holding minutes of work that other peers could share. The owner still caps each
 * batch to a fair share of what is open (coord/queue.ts `fairBatch`).
 */
export class TurnSize {
  private meanMs: number | undefined
  private readonly turnMs: number
  private readonly max: number
  private readonly aheadMs: number

  constructor (init: { turnMs?: number, max?: number, aheadMs?: number } = {}) {
    this.turnMs = init.turnMs ?? DEFAULT_TURN_MS
    this.max = init.max ?? MAX_WANT
    this.aheadMs = init.aheadMs ?? DEFAULT_ASK_AHEAD_MS
  }

  /** A MicroJob ran `ms` here (wall clock, executor included). */
  record (ms: number): void {
    const sample = Math.max(0, ms)
    this.meanMs = this.meanMs == null ? sample : this.meanMs + ALPHA * (sample - this.meanMs)
  }

  /** MicroJobs to ask for in the next turn, in a job with `peers` peers (a longer turn with more: TURN_MS_PER_PEER). */
  want (peers = 1): number {
    if (this.meanMs == null) return Math.min(DEFAULT_WANT, this.max)
    const turnMs = Math.max(this.turnMs, peers * TURN_MS_PER_PEER)
    return Math.max(1, Math.min(this.max, Math.round(turnMs / Math.max(this.meanMs, 1))))
  }

  /**
   * How many of a turn's `items` MicroJobs are still to run when this peer asks for its next turn: about `aheadMs`
   * of work at the mean run time, at least 1 (the last: also before the first run time is known), at most a quarter
   * of the turn (a turn of quick MicroJobs keeps most of its results for its own lock).
   */
  lead (items: number): number {
    if (this.meanMs == null) return 1
    const ahead = Math.ceil(this.aheadMs / Math.max(this.meanMs, 1))
    return Math.max(1, Math.min(ahead, Math.floor(items / 4)))
  }
}
