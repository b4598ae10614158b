import { stallMeter } from './stall.js'
import type { Lease } from './leases.js'
import type { StallMeter } from './stall.js'

export interface OwnerSilenceInit {
  /** Silence longer than this (plus jitter) makes a member suspect the owner (ms). */
  ownerTimeoutMs: number
  /** A per-member random extra (ms), so members do not fail over together. */
  jitterMs: number
  /** Period of the room's tick (ms): drift beyond it is a local stall, not silence. */
  tickMs: number
  /** When the room started listening (ms). */
  now: number
}

/** What the failover role decides on a member's tick. */
export type SilenceVerdict =
  /** The owner was heard from within the timeout. */
  | 'alive'
  /** Silent past the timeout for the first time: decide on the next tick (after held-back I/O was read). */
  | 'suspect'
  /** Still silent on the next tick: claim the MacroJob lease. */
  | 'failover'

/** What the room knows of the MacroJob lease and its queue, for {@link OwnerSilence.watchLease}. */
export interface LeaseContext {
  self: string
  /** The current queue owner and epoch, if any. */
  owner?: string
  epoch: number
  /** The lease is open (released or expired) now. */
  isOpen(lease: Lease): boolean
}

/**
 * The failover role of a room member (docs/coordination.md, "What counts as hearing from the owner"): when the queue
 * was last heard from, and whether its silence is real. Signs of life: any message from the owner, a `future`
 * snapshot of the epoch followed, a renewal of the MacroJob lease by the owner or a later term of it, other gossip
 * of the owner while its MacroJob lease is live. Time the local event loop was stalled is not silence. A failover
 * needs two ticks that agree.
 */
export class OwnerSilence {
  private readonly init: OwnerSilenceInit
  private readonly stall: StallMeter
  private lastHeard: number
  private suspectedAt: number | undefined
  private leaseSeen: string | undefined

  constructor (init: OwnerSilenceInit) {
    this.init = init
    this.lastHeard = init.now
    this.stall = stallMeter(init.tickMs)
  }

  /** When the queue was last heard from (ms). */
  get heardAt (): number {
    return this.lastHeard
  }

  /** A sign of life from the queue at `now`. */
  heard (now: number): void {
    this.lastHeard = now
  }

  /** Call on every tick: a stalled event loop could read nothing, so the stall is not counted as silence. */
  tick (now: number): void {
    const stalled = this.stall.observe(now)
    if (stalled > 0) {
      this.lastHeard = Math.min(now, this.lastHeard + stalled)
    }
  }

  /**
   * The MacroJob lease as the CRDT shows it: a change made by the current owner (a renewal), or a later term (a
   * failover elsewhere is opening the next epoch), counts as hearing from the queue.
   */
  watchLease (now: number, lease: Lease | undefined, context: LeaseContext): void {
    if (lease == null) {
      return
    }
    const seen = `${lease.owner}/${lease.term}/${lease.expiresAt}`
    if (seen === this.leaseSeen) {
      return
    }
    const first = this.leaseSeen == null
    this.leaseSeen = seen
    if (first || lease.owner === context.self || context.isOpen(lease)) {
      return
    }
    if (lease.owner === context.owner || lease.term > context.epoch) {
      this.lastHeard = now
    }
  }

  /**
   * A member's decision at `now`. `ownerGossipAt` = when other gossip of the owner was last received, to pass only
   * while the owner's MacroJob lease is live (a process restarted under the same PeerId gossips but lost the queue).
   */
  decide (now: number, ownerGossipAt?: number): SilenceVerdict {
    const heard = Math.max(this.lastHeard, ownerGossipAt ?? 0)
    if (now - heard <= this.init.ownerTimeoutMs + this.init.jitterMs) {
      this.suspectedAt = undefined
      return 'alive'
    }
    if (this.suspectedAt == null) {
      this.suspectedAt = now
      return 'suspect'
    }
    this.suspectedAt = undefined
    return 'failover'
  }
}
