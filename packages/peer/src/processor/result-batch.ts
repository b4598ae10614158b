import { logger } from '@libp2p/logger'
import { byMacroJob, microKey } from '../coord/index.js'
import type { LeaseTable, ResultTable } from '../coord/index.js'

const log = logger('jobmesh:processor:results')

/** A MicroJob this peer finished, waiting to be written. */
export interface FinishedMicroJob {
  macroIndex: number
  index: number
  /** The MicroJob lease term it ran under (the result's fencing token). */
  leaseTerm: number
  outputHash: Uint8Array<ArrayBuffer>
  size: number
  outputCid?: string
  /** `workTag(execution digest, this peer)`: the result's proof that this peer ran it. */
  workTag: Uint8Array<ArrayBuffer>
}

export interface ResultBatchComponents {
  /** Runs `fn` in one Yjs transaction of MacroJob `macroIndex`'s doc (one CRDT update, one gossip message). */
  transact(macroIndex: number, fn: () => void): void
  results: Pick<ResultTable, 'writeTurn'>
  /** `get` (optional) bounds a result's wait by its lease: {@link ResultBatch.add}. */
  microLeases: Pick<LeaseTable, 'drop'> & Partial<Pick<LeaseTable, 'get'>>
  /** Default `Date.now`. */
  clock?(): number
}

export interface ResultBatchInit {
  /** Longest time a finished MicroJob waits to be written (ms). */
  flushMs: number
  /** Called after a flush with what it wrote (report to the room, events). */
  onWritten(written: FinishedMicroJob[]): void
}

/**
 * The results of one queue turn, written together: one signed TurnResults record per MacroJob and the deletion of each
 * MicroJob's lease go into one transaction (docs/coordination.md, "A result ends the lease"). Written at the
 * end of the turn ({@link ResultBatch.flush}) or `flushMs` after the oldest unwritten one, whichever comes first.
 */
export class ResultBatch {
  private readonly components: ResultBatchComponents
  private readonly init: ResultBatchInit
  private pending: FinishedMicroJob[] = []
  private timer: ReturnType<typeof setTimeout> | undefined
  /** When the pending results are written at the latest (ms, the clock's). */
  private dueAt = Infinity

  constructor (components: ResultBatchComponents, init: ResultBatchInit) {
    this.components = components
    this.init = init
  }

  /** Unwritten results. */
  get size (): number {
    return this.pending.length
  }

  /**
   * Adds a finished MicroJob: it is written `flushMs` after the oldest unwritten one at the latest, and before half of
   * what is left of its lease has passed (a lease shorter than the flush window would run out first, and its item go
   * to a peer that runs it again).
   */
  add (finished: FinishedMicroJob): void {
    this.pending.push(finished)
    const now = this.components.clock?.() ?? Date.now()
    const lease = this.components.microLeases.get?.(microKey(finished.macroIndex, finished.index))
    const leaseLeft = lease == null ? Infinity : Math.max(0, lease.expiresAt - now) / 2
    const dueAt = now + Math.min(this.init.flushMs, leaseLeft)
    if (dueAt >= this.dueAt) return
    clearTimeout(this.timer)
    this.dueAt = dueAt
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.flush()
    }, dueAt - now)
  }

  /**
   * Writes every unwritten result in one transaction. `also` runs in the same transaction: a queue owner locking
   * its next batch writes those MicroJob leases there, so a turn costs one CRDT update (the previous turn's results
   * and the next turn's leases) instead of two.
   */
  flush (also?: { macroIndex: number, fn: () => void }): FinishedMicroJob[] {
    clearTimeout(this.timer)
    this.timer = undefined
    this.dueAt = Infinity
    const written = this.pending
    if (written.length === 0) {
      if (also != null) this.components.transact(also.macroIndex, also.fn)
      return written
    }
    this.pending = []
    const { results, microLeases } = this.components
    const groups = byMacroJob(written, f => f.macroIndex)
    if (also != null && !groups.has(also.macroIndex)) groups.set(also.macroIndex, [])
    for (const [macroIndex, turn] of groups) {
      this.components.transact(macroIndex, () => {
        if (turn.length > 0) {
          results.writeTurn(macroIndex, turn.map(f => ({ index: f.index, term: f.leaseTerm, outputHash: f.outputHash, size: f.size, outputCid: f.outputCid, workTag: f.workTag })))
        }
        for (const f of turn) microLeases.drop(microKey(f.macroIndex, f.index), f.leaseTerm)
        if (also?.macroIndex === macroIndex) also.fn()
      })
    }
    log('wrote %d results', written.length)
    this.init.onWritten(written)
    return written
  }

  /** Drops unwritten results without writing them (a crash: their leases run out and others redo them). */
  discard (): void {
    clearTimeout(this.timer)
    this.timer = undefined
    this.dueAt = Infinity
    this.pending = []
  }
}
