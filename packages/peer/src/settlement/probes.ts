import { delay } from '@jobmesh/contracts'
import { logger } from '@libp2p/logger'
import { ownTxRetry, withRetry } from './retry.js'
import type { ChainClient } from '@jobmesh/contracts'

const log = logger('jobmesh:settlement:probes')

/** A node's answer to its own probe, on chain. */
export interface ProbeAnswer {
  txHash: string
  blockNumber: number
}

export interface ProbeDutyOptions {
  signal: AbortSignal
  /**
   * A failed answer (once its retries within the probe's window are spent, or a revert such as a probe already
   * expired) or scan: reported, and the duty goes on.
   */
  onError(err: Error): void
  /** First block the watcher scans. */
  fromBlock: number
  pollMs?: number
}

/**
 * A registered node's own probes (docs/contracts.md, Probes): answers any probe open now (after a restart), then each
 * one assigned to it as it comes (`ProbeAssigned`). A missed one pauses the node; `stayInDraw` resumes it.
 */
export async function answerOwnProbes (chain: ChainClient, onAnswer: (a: ProbeAnswer) => void, options: ProbeDutyOptions): Promise<void> {
  const me = await chain.address()
  const answer = async (): Promise<void> => {
    // each send re-reads the probe: a retry of one whose answer did reach the pool sends nothing, and a revert
    // (`ProbeExpired` once its window closed) ends the retries
    const tx = await withRetry(async () => await chain.answerProbe({ signal: options.signal }), ownTxRetry('probe answer', options.signal))
    if (tx == null) return
    log('answered a probe in block %d', tx.blockNumber)
    onAnswer({ txHash: tx.hash, blockNumber: tx.blockNumber })
  }
  await guarded(answer, options)
  for await (const assigned of chain.watchEvents({ names: ['ProbeAssigned'], topic1: me, fromBlock: options.fromBlock, signal: options.signal, pollMs: options.pollMs })) {
    log('probed in block %d', assigned.blockNumber)
    await guarded(answer, options)
  }
}

async function guarded (fn: () => Promise<void>, options: Pick<ProbeDutyOptions, 'signal' | 'onError'>): Promise<void> {
  try {
    await fn()
  } catch (err) {
    if (options.signal.aborted) throw err
    options.onError(err as Error)
  }
}

export interface ProbeScanOptions {
  signal: AbortSignal
  onError(err: Error): void
  /** Mean pause between two scans (ms); each pause is drawn between half and one and a half of it. */
  intervalMs: number
  /** Nodes looked at per scan. */
  maxScan: number
}

/**
 * The network's probe keeper, run by every registered peer: every interval (jittered, so peers do not scan at the
 * same moment) it asks the registry whether the next `maxScan` nodes hold a due or an expired probe (a free
 * simulated call) and sends `probeNext` only then. N nodes are covered once per N / maxScan scans of all peers.
 */
export async function scanProbes (chain: ChainClient, onScan: (work: number) => void, options: ProbeScanOptions): Promise<void> {
  for (;;) {
    await delay(options.intervalMs * (0.5 + Math.random()), options.signal)
    await guarded(async () => {
      const { work } = await chain.probeNext(options.maxScan, { signal: options.signal })
      if (work > 0) onScan(work)
    }, options)
  }
}
