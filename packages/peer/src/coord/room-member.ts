import { LeaseRecord } from './pb/coord.js'
import { compareStates, isHandoff } from './queue.js'
import type { Lease } from './leases.js'
import type { QueueState, Verdict } from './queue.js'
import type { RecordVerifier } from './signing.js'

/** How a member checks the MacroJob lease behind a snapshot's epoch. */
export interface EpochCheck {
  verifier: RecordVerifier
  /** Signing domain of this MacroJob's lease. */
  domain: string
  /** The MacroJob lease in this peer's CRDT. */
  crdtLease(): Lease | undefined
}

/** The signer of a signed MacroJob lease record of term `epoch`, or undefined when it does not verify. */
export function leaseSigner (check: EpochCheck, bytes: Uint8Array, epoch: number): string | undefined {
  const record = check.verifier.verify(bytes, check.domain)
  if (record == null) return undefined
  try {
    return LeaseRecord.decode(record.payload).term === epoch ? record.signer : undefined
  } catch {
    return undefined
  }
}

/**
 * Whether a snapshot of a new epoch stands on the MacroJob lease of that term: the CRDT shows that term held by the
 * epoch's root, the signer of the lease the snapshot embeds (its sender, when it opens the epoch: term 0), or its
 * owner when it opens the epoch without one. A signed lease alone proves only who claimed the term, not that the claim
 * won: any peer can sign one of any term, so it never stands in for the CRDT. `undefined`: not known yet (the lease
 * has not synced); `false` for a bad lease, a root the CRDT does not show, or an epoch the CRDT has passed.
 */
export function epochValid (check: EpochCheck, next: QueueState, from: string): boolean | undefined {
  let root: string | undefined = next.term === 0 ? next.owner : undefined
  if (next.macroLease != null) {
    root = leaseSigner(check, next.macroLease, next.epoch)
    if (root == null || (next.term === 0 && root !== from)) return false
  }
  return crdtHolds(check.crdtLease(), next.epoch, root)
}

/** Whether the CRDT's MacroJob lease is of term `epoch` (held by `root`, when known); undefined while it is older. */
function crdtHolds (lease: Lease | undefined, epoch: number, root: string | undefined): boolean | undefined {
  if (lease == null || lease.term < epoch) return undefined
  return lease.term === epoch && (root == null || lease.owner === root)
}

/** How a snapshot of the epoch a member follows stands to the chain it follows: see {@link chainOf}. */
export type ChainRelation = 'same' | 'yield' | 'rival'

/**
 * Two peers that claimed the same MacroJob lease term concurrently (before the CRDT converged, or both at the largest
 * term) both open the epoch, and each chain of turns carries the signed lease of its root in every snapshot. A
 * snapshot of the epoch this member follows is of the `same` chain (same root, or a root not known: judged as
 * usual); of a rival chain the member `yield`s to when the CRDT shows the term held by that chain's root and the
 * snapshot is that root's opening of the epoch or a handoff message (the turn it names is its sender's to give);
 * else a `rival` (dropped as forged: it never continues the chain followed, whatever its term). Every member ends
 * with the claim the CRDT kept, whichever turn each chain has reached. A rival's signed lease alone is no reason to
 * yield (anyone can sign one), nor its owner's word of a turn (a handoff comes from the turn before).
 */
export function chainOf (check: EpochCheck, cur: QueueState | undefined, root: string | undefined, next: QueueState, from: string): ChainRelation {
  if (cur == null || next.epoch !== cur.epoch || next.macroLease == null) return 'same'
  const ownRoot = root ?? (cur.macroLease != null ? leaseSigner(check, cur.macroLease, cur.epoch) : undefined)
  const nextRoot = leaseSigner(check, next.macroLease, next.epoch)
  if (nextRoot == null) return 'rival' // a lease record of another term or signed by nobody
  if (ownRoot == null || nextRoot === ownRoot) return 'same'
  const opening = next.term === 0 && from === nextRoot && next.owner === nextRoot
  if (!opening && !isHandoff(next, from)) return 'rival'
  return crdtHolds(check.crdtLease(), next.epoch, nextRoot) === true ? 'yield' : 'rival'
}

/**
 * Snapshots of a later turn than this peer has seen (a gap in the chain: it missed a handoff), kept until the gap
 * fills, at most `max` (the oldest go first).
 */
export class FutureSnapshots {
  private readonly items: Array<{ state: QueueState, from: string, at: number }> = []
  private readonly max: number

  constructor (max: number) {
    this.max = max
  }

  get size (): number {
    return this.items.length
  }

  /** Whether a buffered handoff message (sent by its previous owner) gave `state`'s owner the queue at its term. */
  private handedTo (state: QueueState): boolean {
    return this.items.some(f => isHandoff(f.state, f.from) && f.state.epoch === state.epoch && f.state.term === state.term && f.state.owner === state.owner)
  }

  add (state: QueueState, from: string, at: number): void {
    this.items.push({ state, from, at })
    if (this.items.length > this.max) this.items.shift()
  }

  /**
   * The buffered snapshot that now continues the chain from `current` (`judge` accepts it), dropping the ones it
   * makes stale; with `timeoutMs`, when none does and the newest has waited that long, the newest (the buffer is
   * then emptied). Undefined: nothing to apply yet.
   */
  next (current: QueueState | undefined, judge: (state: QueueState, from: string) => Verdict, now: number, timeoutMs?: number): QueueState | undefined {
    if (this.items.length === 0) return undefined
    this.items.sort((a, b) => compareStates(a.state, b.state))
    for (let i = 0; i < this.items.length;) {
      const f = this.items[i]
      if (current != null && compareStates(f.state, current) <= 0) {
        this.items.splice(i, 1)
        continue
      }
      if (judge(f.state, f.from) === 'accept') {
        this.items.splice(i, 1)
        return f.state
      }
      i++
    }
    // a gap that does not fill: the newest later turn of the epoch followed whose owner a handoff message here names
    // (a new epoch waits for its lease instead; a turn nobody handed over is some peer's own word)
    const handedOver = this.items.filter(f => current != null && f.state.epoch === current.epoch && this.handedTo(f.state))
    const newest = handedOver.at(-1)
    if (timeoutMs != null && newest != null && now - newest.at >= timeoutMs) {
      this.items.length = 0
      return newest.state
    }
    return undefined
  }
}
