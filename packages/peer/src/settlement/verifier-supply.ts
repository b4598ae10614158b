import { logger } from '@libp2p/logger'
import { every } from './every.js'
import { nodesNeeded } from '../protocol/index.js'
import { ACTIVE_NODES_RECHECK_MS, DEFAULT_ACTIVE_NODES_REFRESH_MS } from './constants.js'
import { narrowsDraw } from './eligible-nodes.js'
import type { HardwareRequirements } from './eligible-nodes.js'
import type { ChainClient } from '@jobmesh/contracts'

const log = logger('jobmesh:settlement')

export interface VerifierSupplyComponents {
  chain: Pick<ChainClient, 'activeNodes'>
  /**
   * How many nodes the registry could draw for a job with these requirements (`eligibleNodes`). Without it, only
   * the count of active nodes is asked, also of a job that needs more VRAM or a GPU model.
   */
  eligible?(req: HardwareRequirements, options?: { signal?: AbortSignal }): Promise<number>
}

export interface VerifierSupplyInit {
  /** How often the counts are read again (ms). Default {@link DEFAULT_ACTIVE_NODES_REFRESH_MS}. */
  refreshMs?: number
  /**
   * Called once per job that is left alone for want of nodes to verify it (on a fresh count, not a stale one):
   * `nodes` active ones, or (`fitting`) active ones that fit its hardware requirements.
   */
  onWaiting?(job: SupplyJob, nodes: number, fitting: boolean): void
  /** Called when a read counts more nodes than the one before (a job left alone may now be verifiable). */
  onGrowth?(nodes: number): void
}

/** A job as the supply check sees it: its k, and what its verifiers' hardware must be. */
export interface SupplyJob {
  jobId: string
  verifiers: number
  requirements?: HardwareRequirements
}

/**
 * Whether the escrow can draw a job's k verifiers: it draws them among the registered, active nodes besides the
 * job's submitter, and only among those whose hardware fits the job (VRAM tier, GPU model), so a job needs k + 1 of
 * them. A peer leaves a job that has fewer alone: its work could never be verified nor paid, and at the deadline the
 * creator would get the whole fee back with the outputs in hand.
 */
export interface VerifierSupply {
  /**
   * Whether k + 1 nodes were active at the last read, and for a job with hardware requirements k + 1 of them fit:
   * true before the first read of the active count (a peer does not stall on an RPC that is away), false before the
   * first count of fitting nodes; a count too small is read again once it is a second old (the answer stays false
   * until a read says otherwise).
   */
  canVerify(job: SupplyJob): boolean
  /** Reads the count of active nodes now. @throws the chain errors */
  refresh(options?: { signal?: AbortSignal }): Promise<number>
  /** Reads the count every `refreshMs` from now on (the first read is `refresh`'s, before). */
  start(): void
  stop(): void
}

/** A count of nodes, when it was read, and whether a read of it is under way. */
interface Count { nodes?: number, at: number, reading?: Promise<unknown> }

export function verifierSupply (components: VerifierSupplyComponents, init: VerifierSupplyInit = {}): VerifierSupply {
  const refreshMs = init.refreshMs ?? DEFAULT_ACTIVE_NODES_REFRESH_MS
  const controller = new AbortController()
  const told = new Set<string>()
  const active: Count = { at: 0 }
  const fitting = new Map<string, Count>()

  /** Reads a count in the background, once at a time; a read that finds more nodes than before says so. */
  const recount = (count: Count, read: (signal: AbortSignal) => Promise<number>): void => {
    if (count.reading != null || controller.signal.aborted) return
    count.reading = read(controller.signal)
      .then(nodes => { set(count, nodes) })
      .catch((err: Error) => {
        count.at = Date.now()
        log('counting nodes failed: %e', err)
      })
      .finally(() => { count.reading = undefined })
  }

  const set = (count: Count, nodes: number): void => {
    const before = count.nodes
    count.nodes = nodes
    count.at = Date.now()
    if (before !== undefined && nodes > before) init.onGrowth?.(nodes)
  }

  const refresh = async (options: { signal?: AbortSignal } = {}): Promise<number> => {
    const nodes = await components.chain.activeNodes(options)
    set(active, nodes)
    return nodes
  }

  /** Enough nodes at the last read; a count too small is read again once a second old, and the job told once. */
  const enough = (job: SupplyJob, count: Count, read: (signal: AbortSignal) => Promise<number>, isFitting: boolean): boolean => {
    if (count.nodes === undefined || nodesNeeded(job.verifiers) <= count.nodes) return true
    if (Date.now() - count.at >= ACTIVE_NODES_RECHECK_MS) {
      recount(count, read)
      return false
    }
    if (!told.has(job.jobId)) {
      told.add(job.jobId)
      init.onWaiting?.(job, count.nodes, isFitting)
    }
    return false
  }

  const fittingCount = (req: HardwareRequirements, eligible: NonNullable<VerifierSupplyComponents['eligible']>): { count: Count, read: (signal: AbortSignal) => Promise<number> } => {
    const key = `${req.minVramGb}/${req.gpuModel ?? ''}`
    let count = fitting.get(key)
    if (count === undefined) {
      count = { at: 0 }
      fitting.set(key, count)
    }
    return { count, read: async signal => await eligible(req, { signal }) }
  }

  return {
    canVerify (job) {
      if (!enough(job, active, async signal => await components.chain.activeNodes({ signal }), false)) return false
      const req = job.requirements
      if (req == null || !narrowsDraw(req) || components.eligible == null) return true
      const { count, read } = fittingCount(req, components.eligible)
      // not counted yet, or a count older than a refresh: read (in the background); none yet is not enough
      if (Date.now() - count.at >= refreshMs) recount(count, read)
      if (count.nodes === undefined) return false
      return enough(job, count, read, true)
    },
    refresh,
    start () { void every(refreshMs, controller.signal, async signal => { await refresh({ signal }) }, err => { log('reading the active nodes failed: %e', err) }) },
    stop () { controller.abort() }
  }
}
