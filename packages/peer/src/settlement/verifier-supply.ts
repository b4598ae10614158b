import { delay } from '@jobmesh/contracts'
import { logger } from '@libp2p/logger'
import { nodesNeeded } from '../protocol/index.js'
import { ACTIVE_NODES_RECHECK_MS, DEFAULT_ACTIVE_NODES_REFRESH_MS } from './constants.js'
import type { ChainClient } from '@jobmesh/contracts'

const log = logger('jobmesh:settlement')

export interface VerifierSupplyComponents {
  chain: Pick<ChainClient, 'activeNodes'>
}

export interface VerifierSupplyInit {
  /** How often the count of active nodes is read again (ms). Default {@link DEFAULT_ACTIVE_NODES_REFRESH_MS}. */
  refreshMs?: number
  /** Called once per job that is left alone for want of nodes to verify it (on a fresh count, not a stale one). */
  onWaiting?(job: { jobId: string, verifiers: number }, activeNodes: number): void
  /** Called when a read counts more active nodes than the one before (a job left alone may now be verifiable). */
  onGrowth?(activeNodes: number): void
}

/**
 * Whether the escrow can draw a job's k verifiers: it draws them among the registered, active nodes besides the
 * job's submitter, so a job needs k + 1 active nodes. A peer leaves a job that has fewer alone: its work could never
 * be verified nor paid, and at the deadline the creator would get the whole fee back with the outputs in hand.
 */
export interface VerifierSupply {
  /**
   * Whether k + 1 nodes were active at the last read: true before the first read; a count too small is read again
   * once it is a second old (the answer stays false until a read says otherwise, also while the chain is away).
   */
  canVerify(job: { jobId: string, verifiers: number }): boolean
  /** Reads the count of active nodes now. @throws the chain errors */
  refresh(options?: { signal?: AbortSignal }): Promise<number>
  /** Reads the count every `refreshMs` from now on (the first read is `refresh`'s, before). */
  start(): void
  stop(): void
}

export function verifierSupply (components: VerifierSupplyComponents, init: VerifierSupplyInit = {}): VerifierSupply {
  const refreshMs = init.refreshMs ?? DEFAULT_ACTIVE_NODES_REFRESH_MS
  const controller = new AbortController()
  const told = new Set<string>()
  let active: number | undefined
  let readAt = 0
  let reading: Promise<unknown> | undefined

  const refresh = async (options: { signal?: AbortSignal } = {}): Promise<number> => {
    const count = await components.chain.activeNodes(options)
    const before = active
    active = count
    readAt = Date.now()
    if (before !== undefined && count > before) init.onGrowth?.(count)
    return count
  }

  /** Reads the count again in the background, once at a time. */
  const recheck = (): void => {
    if (reading != null || controller.signal.aborted) return
    reading = refresh({ signal: controller.signal })
      .catch((err: Error) => { log('reading the active nodes failed: %e', err) })
      .finally(() => { reading = undefined })
  }

  const loop = async (): Promise<void> => {
    const { signal } = controller
    // the first read is the caller's (`refresh` before `start`)
    while (!signal.aborted) {
      await delay(refreshMs, signal).catch(() => {})
      if (signal.aborted) return
      await refresh({ signal }).catch((err: Error) => { if (!signal.aborted) log('reading the active nodes failed: %e', err) })
    }
  }

  return {
    canVerify (job) {
      if (active === undefined || nodesNeeded(job.verifiers) <= active) return true
      // too few at the last read: nodes may have joined since; the job waits for a fresh count
      if (Date.now() - readAt >= ACTIVE_NODES_RECHECK_MS) {
        recheck()
        return false
      }
      if (!told.has(job.jobId)) {
        told.add(job.jobId)
        init.onWaiting?.(job, active)
      }
      return false
    },
    refresh,
    start () { void loop() },
    stop () { controller.abort() }
  }
}
