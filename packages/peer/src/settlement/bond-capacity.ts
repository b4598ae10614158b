import { logger } from '@libp2p/logger'
import { every } from './every.js'
import { ACTIVE_NODES_RECHECK_MS, DEFAULT_ACTIVE_NODES_REFRESH_MS } from './constants.js'
import type { ChainClient } from '@jobmesh/contracts'

const log = logger('jobmesh:settlement')

/** Basis points in one: `submissionBond(10 000)` is the escrow's `bondBps`. */
const BPS = 10_000n

export interface BondCapacityComponents {
  chain: Pick<ChainClient, 'freeStake' | 'submissionBond'>
}

export interface BondCapacityInit {
  /** How often this node's free stake is read again (ms). Default {@link DEFAULT_ACTIVE_NODES_REFRESH_MS}. */
  refreshMs?: number
  /** Called once per job left alone because this node could not lock its bond (`bond` > `free`, wei). */
  onShort?(job: { jobId: string }, bond: bigint, free: bigint): void
  /** Called when a read finds more free stake than the one before (a job left alone may now be bondable). */
  onGrowth?(): void
}

/**
 * Whether this node could lock the bond of a job's results (`fee x bondBps`): a node that cannot never submits them
 * (`InsufficientFreeStake`), so a job none of its peers can bond was processed for nothing, its outputs handed to
 * its creator, who refunded the fee at the deadline. A peer works only on jobs it could submit itself: whoever
 * finishes a job can then finalize it, and each processor's stake covers the slash of a fake of its own.
 */
export interface BondCapacity {
  /**
   * True when this node's free stake at the last read covers the job's bond; true before the first read (a peer
   * does not stall on an RPC that is away); a stake too small is read again once it is a second old.
   */
  canBond(job: { jobId: string, fee: bigint }): boolean
  /** Reads the bond rate and this node's free stake now. @throws the chain errors */
  refresh(options?: { signal?: AbortSignal }): Promise<void>
  /** Reads them every `refreshMs` from now on (the first read is `refresh`'s, before). */
  start(): void
  stop(): void
}

export function bondCapacity (components: BondCapacityComponents, init: BondCapacityInit = {}): BondCapacity {
  const refreshMs = init.refreshMs ?? DEFAULT_ACTIVE_NODES_REFRESH_MS
  const controller = new AbortController()
  const told = new Set<string>()
  let bps: bigint | undefined
  let free: bigint | undefined
  let readAt = 0
  let reading: Promise<unknown> | undefined

  const refresh = async (options: { signal?: AbortSignal } = {}): Promise<void> => {
    bps ??= await components.chain.submissionBond(BPS, options)
    const before = free
    free = await components.chain.freeStake(undefined, options)
    readAt = Date.now()
    if (before !== undefined && free > before) init.onGrowth?.()
  }

  const recheck = (): void => {
    if (reading != null || controller.signal.aborted) return
    reading = refresh({ signal: controller.signal })
      .catch((err: Error) => { log('reading this node\'s free stake failed: %e', err) })
      .finally(() => { reading = undefined })
  }

  return {
    canBond (job) {
      if (bps === undefined || free === undefined) return true
      const bond = job.fee * bps / BPS
      if (bond <= free) return true
      if (Date.now() - readAt >= ACTIVE_NODES_RECHECK_MS) {
        recheck()
        return false
      }
      if (!told.has(job.jobId)) {
        told.add(job.jobId)
        init.onShort?.(job, bond, free)
      }
      return false
    },
    refresh,
    start () { void every(refreshMs, controller.signal, async signal => { await refresh({ signal }) }, err => { log('reading this node\'s free stake failed: %e', err) }) },
    stop () { controller.abort() }
  }
}
