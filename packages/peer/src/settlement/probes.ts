import { delay } from '@jobmesh/contracts'
import { logger } from '@libp2p/logger'
import { PROBE_ANSWER_MAX_RETRY_MS, PROBE_ANSWER_RETRY_MS, PROBE_ANSWER_RETRY_TOTAL_MS } from './constants.js'
import { withRetry } from './retry.js'
import type { ChainClient, TxResult } from '@jobmesh/contracts'

const log = logger('jobmesh:settlement:probes')

/** What a node did about its own probe. */
export interface ProbeAnswer {
  /** `answered`: the answer is on chain; `resumed`: a probe was missed (the registry paused the node) and the node put itself back. */
  outcome: 'answered' | 'resumed'
  txHash: string
  blockNumber: number
}

export interface ProbeDutyOptions {
  signal: AbortSignal
  /**
   * A failed answer (once its retries within the probe's window are spent, or a revert such as a probe already
   * expired), resume or scan: reported, and the duty goes on.
   */
  onError(err: Error): void
  /** First block the watcher scans. */
  fromBlock: number
  pollMs?: number
}

/**
 * A registered node's own probes (docs/contracts.md, Probes): answers any probe open now (after a restart), then each
 * one assigned to it as it comes (`ProbeAssigned`); after a missed one (`ProbeMissed`: the registry paused it) a
 * running node resumes itself, as it would at its next start.
 */
export async function answerOwnProbes (chain: ChainClient, onAnswer: (a: ProbeAnswer) => void, options: ProbeDutyOptions): Promise<void> {
  const me = await chain.address()
  // a failed send (an RPC hiccup, a nonce another sender of the wallet took) is sent again while the probe is open:
  // each send re-reads the probe, and a revert (`ProbeExpired` once its window closed) ends the retries
  const answer = async (): Promise<void> => {
    const tx = await withRetry(async () => await chain.answerProbe({ signal: options.signal }), {
      signal: options.signal,
      delayMs: PROBE_ANSWER_RETRY_MS,
      maxDelayMs: PROBE_ANSWER_MAX_RETRY_MS,
      totalMs: PROBE_ANSWER_RETRY_TOTAL_MS,
      what: 'probe answer',
      // a revert ends it; a timeout does not (most come before anything is sent: the probe's read, the estimate, the
      // nonce), and a retry of one whose answer did reach the pool re-reads the probe first: answered, it sends nothing
      permanent: (err) => err.name === 'ChainRevertError'
    })
    if (tx != null) onAnswer(answered('answered', tx))
  }
  const resume = async (): Promise<void> => {
    if (!(await chain.nodeInfo(me, { signal: options.signal })).paused) return
    log('missed a probe (the registry paused this node): resuming')
    onAnswer(answered('resumed', await chain.resume({ signal: options.signal })))
  }
  await guarded(answer, options)
  for await (const e of chain.watchEvents({ names: ['ProbeAssigned', 'ProbeMissed'], topic1: me, fromBlock: options.fromBlock, signal: options.signal, pollMs: options.pollMs })) {
    await guarded(e.name === 'ProbeAssigned' ? answer : resume, options)
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

function answered (outcome: ProbeAnswer['outcome'], tx: TxResult): ProbeAnswer {
  return { outcome, txHash: tx.hash, blockNumber: tx.blockNumber }
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
