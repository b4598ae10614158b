import { logger } from '@libp2p/logger'
import { claimPayouts } from './claim.js'
import { finalizeJob } from './finalize.js'
import { drawVerifiers, proveAndSettle } from './settle.js'
import { verifyJob } from './verify.js'
import type { ClaimResult } from './claim.js'
import type { FinalizeResult } from './finalize.js'
import type { SettleResult } from './settle.js'
import type { SettlementComponents, SettlementOptions } from './types.js'
import type { VerifyResult } from './verify.js'

const log = logger('jobmesh:settlement')

export interface SettlementInit extends Omit<SettlementOptions, 'signal'> {
  /** First block the watchers scan; default: the head at `start()`. */
  fromBlock?: number
  /** Claim payouts and credits of Released jobs automatically. Default true. */
  autoClaim?: boolean
}

export interface SettlementEvents {
  finalized: FinalizeResult & { jobId: string }
  verified: VerifyResult
  settled: SettleResult
  claimed: ClaimResult & { jobId: string }
  error: { jobId?: string, step: string, error: Error }
}

/** The peer's settlement service: finalizes completed jobs, serves as verifier when drawn, settles and claims. */
export interface Settlement extends EventTarget {
  /** Starts the watchers: `VerifierAssigned` for this node (verifier duty) and `JobReleased` (claims). */
  start(): Promise<void>
  /** Aborts every watcher and running step, and waits for them. */
  stop(): Promise<void>
  /**
   * The processor's `onJobComplete` hook: finalizes the job, then draws verifiers, proves, settles and claims in
   * the background. Resolves after the finalization.
   */
  onJobComplete(jobId: string): Promise<FinalizeResult>
}

/**
 * Creates the settlement service of a peer.
 *
 * @example
 * ```ts
 * const settlement = createSettlement({ docs, chain, store, privateKey: node.privateKey, executor })
 * const processor = createProcessor(node, { executor, onJobComplete: async (id) => { await settlement.onJobComplete(id) } })
 * await settlement.start()
 * ```
 */
export function createSettlement (components: SettlementComponents, init: SettlementInit = {}): Settlement {
  const events = new EventTarget()
  const controller = new AbortController()
  const tasks = new Set<Promise<unknown>>()
  const verifying = new Set<string>()
  const options = (): SettlementOptions => ({ ...init, signal: controller.signal })

  const emit = <K extends keyof SettlementEvents>(type: K, detail: SettlementEvents[K]): void => {
    events.dispatchEvent(new CustomEvent(type, { detail }))
  }
  const track = (jobId: string | undefined, step: string, fn: () => Promise<void>): void => {
    const p = fn().catch((err: Error) => {
      if (controller.signal.aborted) return
      log.error('%s of %s: %e', step, jobId, err)
      emit('error', { jobId, step, error: err })
    })
    tasks.add(p)
    void p.finally(() => tasks.delete(p))
  }

  const settleAndClaim = async (jobId: string): Promise<void> => {
    const settled = await proveAndSettle(components, jobId, options())
    emit('settled', settled)
    if (settled.released && init.autoClaim !== false) {
      emit('claimed', { jobId, ...await claimPayouts(components, jobId, options()) })
    }
  }

  const watch = (names: string[], topic2: string | undefined, onEvent: (jobId: string) => void, fromBlock: number): void => {
    track(undefined, `watch ${names.join(',')}`, async () => {
      for await (const e of components.chain.watchEvents({ names, topic2, fromBlock, signal: controller.signal, pollMs: init.pollMs })) {
        onEvent(String(e.args.jobId).toLowerCase())
      }
    })
  }

  return Object.assign(events, {
    async start (): Promise<void> {
      const me = await components.chain.address()
      const fromBlock = init.fromBlock ?? await components.chain.blockNumber({ signal: controller.signal })
      const executor = components.executor
      if (executor != null) {
        watch(['VerifierAssigned'], me, (jobId) => {
          if (verifying.has(jobId)) return
          verifying.add(jobId)
          track(jobId, 'verify', async () => {
            try {
              const result = await verifyJob({ ...components, executor }, jobId, options())
              emit('verified', result)
              if (result.revealed) await settleAndClaim(jobId)
            } finally {
              verifying.delete(jobId)
            }
          })
        }, fromBlock)
      }
      if (init.autoClaim !== false) {
        watch(['JobReleased'], undefined, (jobId) => {
          track(jobId, 'claim', async () => {
            const r = await claimPayouts(components, jobId, options())
            if (r.claimed > 0n || r.withdrawn > 0n) emit('claimed', { jobId, ...r })
          })
        }, fromBlock)
      }
    },
    async stop (): Promise<void> {
      controller.abort()
      await Promise.allSettled([...tasks])
    },
    async onJobComplete (jobId: string): Promise<FinalizeResult> {
      const result = await finalizeJob(components, jobId, { signal: controller.signal })
      emit('finalized', { jobId, ...result })
      if (result.outcome === 'submitted') {
        track(jobId, 'settle', async () => {
          await drawVerifiers(components, jobId, options())
          await settleAndClaim(jobId)
        })
      }
      return result
    }
  })
}
