import { delay } from '@jobmesh/contracts'
import { logger } from '@libp2p/logger'
import { claimPayouts } from './claim.js'
import { finalizeJob } from './finalize.js'
import { isPermanent, withRetry } from './retry.js'
import { CURSOR_SAVE_MS, DEFAULT_PROBE_SCAN_MS, DEFAULT_PROBE_SCAN_NODES } from './constants.js'
import { answerOwnProbes, scanProbes } from './probes.js'
import { stayInDraw } from './stay-in-draw.js'
import { drawIfLate, drawVerifiers, proveAndSettle } from './settle.js'
import { ensureSeedCommitted } from './seeds.js'
import { verifyJob } from './verify.js'
import { indexedRounds, reannounceRound, slashedPeerIds } from '../jobs/index.js'
import { createTakeover } from './takeover.js'
import type { FinalizeResult } from './finalize.js'
import type { Settlement, SettlementDuty, SettlementEvents, SettlementInit, SettlementStartOptions } from './service-api.js'
import type { SettleResult } from './settle.js'
import type { SettlementComponents, SettlementOptions } from './types.js'
import type { AbortOptions } from '@libp2p/interface'

const log = logger('jobmesh:settlement')

/** The journal key of the draw and settlement of this node's own submission. */
const settleKey = (jobId: string): string => `settle/${jobId.toLowerCase()}`
/** The journal key of a finalization this node took on (a completed job's submission). */
const finalizeKey = (jobId: string): string => `finalize/${jobId.toLowerCase()}`

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

  const journal = components.journal
  /** jobIds this peer is finalizing now (status, tests). */
  const finalizing = new Set<string>()

  /**
   * Finalizes with retries, then draws, proves and settles in the background. The duty is journaled first,
   * so a peer that restarts before the submission resumes it (docs/settlement.md, Restarts).
   */
  const finalize = async (jobId: string): Promise<FinalizeResult> => {
    const key = finalizeKey(jobId)
    finalizing.add(jobId)
    try {
      await journal?.put(key, JSON.stringify({ at: Date.now() }))
      let result: FinalizeResult
      try {
        // the draw is a duty from the submission's block on: journaled then, before the finalization's last steps
        const onSubmitted = async (): Promise<void> => { await journal?.put(settleKey(jobId), '{}') }
        result = await withRetry(async () => await finalizeJob(components, jobId, { signal: controller.signal, outputFetchTimeoutMs: init.outputFetchTimeoutMs, onSubmitted }), {
          signal: controller.signal, totalMs: init.finalizeTimeoutMs, delayMs: init.finalizeRetryMs, what: `finalization of ${jobId}`
        })
      } catch (err) {
        // a failure no retry fixes is not resumed either; a timeout or a stop is (the next start tries again)
        if (isPermanent(err as Error)) await journal?.delete(key).catch(() => {})
        throw err
      }
      // a read that fails counts as ours: the duty itself ends at once on a submission that is not (`settleOwn`)
      const own = result.outcome === 'submitted' || (result.status === 'Submitted' && await submittedHere(jobId).catch(() => true))
      // the draw is a duty of its own from here on: journaled before the finalization's entry goes
      if (own) await journal?.put(settleKey(jobId), '{}')
      await journal?.delete(key)
      emit('finalized', { jobId, ...result })
      if (own) settleOwn(jobId)
      return result
    } finally {
      finalizing.delete(jobId)
    }
  }

  /**
   * Drops a journaled finalization the chain no longer asks of this node: the job ended (released or refunded), or
   * another node's submission stands (a rejection reopens the job for a new round, whose completion is a new
   * finalization). Without it a finalization that gave up on its retries (or was still retrying) stayed journaled
   * until the next start, and a stop listed it as a duty the chain's deadlines run against (docs/settlement.md,
   * Restarts). This node's own submission is left to `finalize`, which turns the entry into its `settle/` duty.
   */
  const dropEndedFinalization = async (jobId: string): Promise<void> => {
    const key = finalizeKey(jobId)
    if (journal == null || await journal.get(key) == null) return
    const job = await components.chain.job(jobId, { signal: controller.signal })
    if (job.status === 'Open' || (job.status === 'Submitted' && job.submitter.toLowerCase() === (await components.chain.address()).toLowerCase())) return
    log('job %s is %s on chain: its journaled finalization is not owed any more', jobId, job.status)
    await journal.delete(key)
  }

  const settling = new Set<string>()
  /** Whether this node's submission of `jobId` is still under verification (a finalization resumed after it submitted). */
  const submittedHere = async (jobId: string): Promise<boolean> => {
    const job = await components.chain.job(jobId, { signal: controller.signal })
    return job.status === 'Submitted' && job.submitter.toLowerCase() === (await components.chain.address()).toLowerCase()
  }

  /**
   * Draws, proves and settles this node's submission in the background until the round is over. Journaled until then:
   * a peer stopped between its submission and its draw resumes the draw at its next start, before the escrow's grace
   * ends and another node draws it for a bounty out of this node's stake (docs/settlement.md, Restarts).
   */
  /**
   * A round without a quorum restarts (still Submitted): draw again, until released or rejected, while the submission
   * is this node's (a journaled duty resumed after a stop may find the job rejected and another node's submission of a
   * later round, or a data dir started with another wallet: none of its business). A failed step (RPC away, a reverted
   * draw) is retried, every step being idempotent.
   */
  const settleRounds = async (jobId: string): Promise<void> => {
    await withRetry(async () => {
      while (await submittedHere(jobId)) {
        await drawVerifiers(components, jobId, options())
        if ((await settle(jobId)).status !== 'Submitted') return
      }
    }, { signal: controller.signal, totalMs: init.finalizeTimeoutMs, delayMs: init.finalizeRetryMs, what: `settlement of ${jobId}` })
  }

  const settleOwn = (jobId: string): void => {
    const key = settleKey(jobId)
    // once: a finalization resumed after its submission and the journaled draw may both ask for it
    if (settling.has(key)) return
    settling.add(key)
    track(jobId, 'settle', async () => {
      try {
        for (;;) {
          try {
            await settleRounds(jobId)
            break
          } catch (err) {
            // a stop keeps the duty for the next start; a failure no retry fixes ends it (the late draw and anyone's
            // settle remain); an RPC outage longer than the retries' budget does not: the rounds go on
            if (controller.signal.aborted) throw err
            if (isPermanent(err as Error)) {
              await journal?.delete(key).catch(() => {})
              throw err
            }
            log('the settlement of %s failed, going on: %e', jobId, err)
          }
        }
      } finally {
        settling.delete(key)
      }
      await journal?.delete(key)
    })
  }

  const takeover = createTakeover({
    docs: components.docs,
    privateKey: components.privateKey,
    chain: components.chain,
    livePeers: () => init.livePeers?.() ?? [],
    finalize: async (jobId) => { if (!finalizing.has(jobId)) await finalize(jobId) }
  }, { graceMs: init.takeoverGraceMs, stepMs: init.takeoverStepMs })

  /** Saves, every {@link CURSOR_SAVE_MS}, the head seen one period earlier: the watchers are past it by then. */
  const keepCursor = (): void => {
    if (journal == null) return
    track(undefined, 'cursor', async () => {
      let previous: number | undefined
      while (!controller.signal.aborted) {
        let head: number | undefined
        try {
          head = await components.chain.blockNumber({ signal: controller.signal })
        } catch (err) {
          // an RPC outage skips a save, it does not end the saves (the next start would re-read from an older block)
          if (controller.signal.aborted) return
          log('reading the head for the chain cursor failed, trying again in %d ms: %e', CURSOR_SAVE_MS, err)
        }
        if (head != null) {
          // a datastore that fails here fails the task, as before: the operator sees it
          if (previous != null) await journal.put('cursor', String(previous))
          previous = head
        }
        await delay(CURSOR_SAVE_MS, controller.signal)
      }
    })
  }

  /** Proves and settles; a release is claimed by the `JobReleased` watcher, the one claim path (it then retires the job). */
  const settle = async (jobId: string): Promise<SettleResult> => {
    const settled = await proveAndSettle(components, jobId, options())
    emit('settled', settled)
    return settled
  }

  /** Claims a released job's payouts; a manifest not fetched yet or an RPC hiccup is retried, like a finalization. */
  const claim = async (jobId: string): Promise<void> => {
    const r = await withRetry(async () => await claimPayouts(components, jobId, options()), {
      signal: controller.signal, totalMs: init.finalizeTimeoutMs, delayMs: init.finalizeRetryMs, what: `claim of ${jobId}`
    })
    if (r.claimed > 0n || r.withdrawn > 0n) emit('claimed', { jobId, ...r })
  }

  const watch = (names: string[], topic2: string | undefined, onEvent: (jobId: string, blockNumber: number, name: string) => void, fromBlock: number): void => {
    track(undefined, `watch ${names.join(',')}`, async () => {
      for await (const e of components.chain.watchEvents({ names, topic2, fromBlock, signal: controller.signal, pollMs: init.pollMs })) {
        onEvent(String(e.args.jobId).toLowerCase(), e.blockNumber, e.name)
      }
    })
  }

  /** Re-announces the job for its round on chain when it is Open again after a rejection (docs/settlement.md). */
  const nextRound = async (jobId: string): Promise<void> => {
    const job = await components.chain.job(jobId, { signal: controller.signal })
    if (job.status !== 'Open' || job.rejections === 0) return
    if (await reannounceRound(components, jobId, job.rejections, { signal: controller.signal })) {
      emit('reannounced', { jobId, round: job.rejections })
    }
  }

  return Object.assign(events, {
    async start (startOptions: SettlementStartOptions = {}): Promise<void> {
      const me = await components.chain.address()
      const head = Math.min(await components.chain.blockNumber({ signal: controller.signal }), startOptions.since ?? Infinity)
      // after a restart the watchers go on from where they were (assignments, releases and rejections of the
      // time away are seen again; every handler is idempotent)
      const saved = Number(await journal?.get('cursor') ?? NaN)
      const fromBlock = init.fromBlock ?? (Number.isSafeInteger(saved) && saved < head ? saved : head)
      keepCursor()
      for (const { key } of await journal?.list('finalize/') ?? []) {
        const jobId = key.slice('finalize/'.length)
        log('resuming the finalization of %s', jobId)
        track(jobId, 'finalize', async () => { await finalize(jobId) })
      }
      for (const { key } of await journal?.list('settle/') ?? []) {
        const jobId = key.slice('settle/'.length)
        log('resuming the draw and settlement of %s', jobId)
        settleOwn(jobId)
      }
      const executor = components.executor
      if (executor != null) {
        // a node that can be drawn as a verifier needs a seed it can reveal (usually committed before registering)
        await ensureSeedCommitted(components.chain, { signal: controller.signal })
        const verify = (task: string): void => {
          // one task per assignment: a later round of the same job (after a rejection) is a new assignment
          if (verifying.has(task)) return
          verifying.add(task)
          const jobId = task.split('@')[0]
          track(jobId, 'verify', async () => {
            try {
              // journaled until done: a verifier that restarts between commit and reveal comes back to reveal
              await journal?.put(`verify/${task}`, '{}')
              // an assignment seen again after a restart: only a submission still under verification needs us
              if ((await components.chain.jobStatus(jobId, { signal: controller.signal })) === 'Submitted') {
                const result = await verifyJob({ ...components, executor }, jobId, options())
                emit('verified', result)
                // settled also without this node's reveal: a round nobody could prove still has to end (against its
                // submitter), or its verifiers stay busy
                await settle(jobId)
              }
              await journal?.delete(`verify/${task}`)
            } catch (err) {
              // a stop keeps the duty for the next start; a failure ends it (the chain times the verifier out)
              if (!controller.signal.aborted) await journal?.delete(`verify/${task}`).catch(() => {})
              throw err
            } finally {
              verifying.delete(task)
            }
          })
        }
        for (const { key } of await journal?.list('verify/') ?? []) {
          log('resuming verification duty %s', key)
          verify(key.slice('verify/'.length))
        }
        watch(['VerifierAssigned'], me, (jobId, block) => { verify(`${jobId}@${block}`) }, fromBlock)
        // a node that can be drawn is also probed when idle, and keeps the network's probes going (docs/contracts.md)
        const onError = (step: string) => (error: Error): void => { emit('error', { step, error }) }
        track(undefined, 'probe', async () => {
          await answerOwnProbes(components.chain, (a) => { emit('probed', a) }, { signal: controller.signal, fromBlock, pollMs: init.pollMs, onError: onError('probe answer') })
        })
        // paused by the registry after a missed task or probe (it looked offline), a running node goes back in the draw
        track(undefined, 'resume', async () => {
          await stayInDraw(components.chain, (p) => { emit('paused', p) }, { signal: controller.signal, fromBlock, pollMs: init.pollMs, onError: onError('resume') })
        })
        track(undefined, 'probe scan', async () => {
          await scanProbes(components.chain, (work) => { log('probe scan: %d probes assigned or closed', work) }, {
            signal: controller.signal, intervalMs: init.probeScanMs ?? DEFAULT_PROBE_SCAN_MS, maxScan: DEFAULT_PROBE_SCAN_NODES, onError: onError('probe scan')
          })
        })
      }
      watch(['JobRejected'], undefined, (jobId) => { track(jobId, 'next round', async () => { await nextRound(jobId) }) }, fromBlock)
      // every submission and every restarted round: drawn by its submitter, else by a watcher after the
      // submitter's grace (paid a bounty), so a submitter that died after a restart does not leave the job undrawn
      watch(['ResultsSubmitted', 'VerificationRestarted'], undefined, (jobId, _block, name) => {
        track(jobId, 'late draw', async () => {
          if (await drawIfLate(components, jobId, options())) emit('drew', { jobId })
        })
        if (name === 'ResultsSubmitted') track(jobId, 'finalization dropped', async () => { await dropEndedFinalization(jobId) })
      }, fromBlock)
      track(undefined, 'rounds', async () => {
        // jobs rejected while this peer was away: the index still announces an earlier round
        for (const [jobId, round] of await indexedRounds(components, { signal: controller.signal })) {
          const job = await components.chain.job(jobId, { signal: controller.signal })
          if (job.status === 'Open' && job.rejections > round) await nextRound(jobId)
        }
      })
      // a job released or refunded is over: its payouts claimed first (they read its manifest), then `ended`
      watch(['JobReleased', 'JobRefunded'], undefined, (jobId, _block, name) => {
        const status = name === 'JobReleased' ? 'Released' : 'Refunded'
        const claiming = status === 'Released' && init.autoClaim !== false
        track(jobId, 'finalization dropped', async () => { await dropEndedFinalization(jobId) })
        track(jobId, claiming ? 'claim' : 'end', async () => {
          try {
            if (claiming) await claim(jobId)
          } finally {
            if (!controller.signal.aborted) emit('ended', { jobId, status })
          }
        })
      }, fromBlock)
    },
    halt (): void {
      controller.abort()
    },
    async stop (): Promise<void> {
      controller.abort()
      await Promise.allSettled([...tasks, takeover.stop()])
    },
    async excluded (jobId: string, round: number, options: AbortOptions = {}): Promise<ReadonlySet<string>> {
      return slashedPeerIds(components, jobId.toLowerCase(), round, { signal: options.signal ?? controller.signal })
    },
    async onJobComplete (jobId: string): Promise<FinalizeResult> {
      return await finalize(jobId)
    },
    finalizing (): string[] {
      return [...finalizing]
    },
    async duties (): Promise<SettlementDuty[]> {
      const out: SettlementDuty[] = []
      for (const kind of ['finalize', 'settle', 'verify'] as const) {
        for (const { key } of await journal?.list(`${kind}/`) ?? []) {
          // a verification's key names its task, `<jobId>@<round>`
          out.push({ kind, jobId: key.slice(kind.length + 1).split('@')[0] })
        }
      }
      // a finalization stopped after its submission: what is at stake is the draw (its entry resumes both)
      const drawing = new Set(out.filter(d => d.kind === 'settle').map(d => d.jobId))
      return out.filter(d => d.kind !== 'finalize' || !drawing.has(d.jobId))
    },
    onJobCompletedElsewhere (jobId: string): void {
      takeover.watch(jobId)
    }
  })
}
