import { logger } from '@libp2p/logger'
import { DEFAULT_RESUMES_IN_A_ROW } from './constants.js'
import { ownTxRetry, withRetry } from './retry.js'
import type { ChainClient, ChainEvent } from '@jobmesh/contracts'

const log = logger('jobmesh:settlement:pauses')

/** What a running node did when the registry paused it. */
export interface OwnPause {
  /** What it missed: a probe of the registry, or a verification task it was drawn for. */
  cause: 'probe' | 'task'
  /** Block of the pause. */
  pausedBlock: number
  /** Pauses by the registry in a row, this one included, with no task scored above 0 between them. */
  inARow: number
  /**
   * `resumed`: back in the draw (`txHash`, `blockNumber`); `stayed`: left paused, since it missed more tasks in a row
   * than it may resume after on its own (a restart resumes it).
   */
  outcome: 'resumed' | 'stayed'
  txHash?: string
  blockNumber?: number
}

export interface StayInDrawOptions {
  signal: AbortSignal
  /** A resume that failed once its retries were spent: reported, and the duty goes on. */
  onError(err: Error): void
  /** First block the watcher scans. */
  fromBlock: number
  pollMs?: number
  /** Pauses in a row the node resumes after (default {@link DEFAULT_RESUMES_IN_A_ROW}); the next one it stays paused. */
  resumesInARow?: number
}

/**
 * Keeps a running node in the verifier draw (docs/settlement.md, Restarts): the registry pauses a node that misses a
 * whole verification task or a probe (it looked offline), and until its peer restarted it stayed out of every draw.
 * Now a running node resumes itself after such a pause, as its next start would; but after more pauses in a row than
 * `resumesInARow`, with no task scored above 0 between them, it stays paused: a node that keeps missing its tasks
 * scores 0 each time, and a full QoS window of such scores gets it kicked out and banned. Its own pause at a stop is
 * never seen here (the settlement is halted first).
 */
export async function stayInDraw (chain: ChainClient, onPause: (p: OwnPause) => void, options: StayInDrawOptions): Promise<void> {
  const me = await chain.address()
  const most = options.resumesInARow ?? DEFAULT_RESUMES_IN_A_ROW
  let inARow = 0
  for await (const e of chain.watchEvents({ names: ['NodePaused', 'TaskScoreRecorded'], topic1: me, fromBlock: options.fromBlock, signal: options.signal, pollMs: options.pollMs })) {
    if (e.name === 'TaskScoreRecorded') {
      if ((e.args.taskScore as bigint) > 0n) inARow = 0
      continue
    }
    try {
      const info = await chain.nodeInfo(me, { signal: options.signal })
      // a pause seen again after a restart (the start resumed it), or a node on its way out: nothing to do
      if (!info.paused || info.exiting || info.kickedOut || !info.registered) continue
      inARow++
      const pause = { cause: await causeOf(chain, me, e, options.signal), pausedBlock: e.blockNumber, inARow }
      if (inARow > most) {
        log('paused by the registry %d times in a row: staying out of the draw', inARow)
        onPause({ ...pause, outcome: 'stayed' })
        continue
      }
      log('paused by the registry (a missed %s): resuming', pause.cause)
      // a revert (`NotPaused`: resumed meanwhile; `NodeIsExiting`) ends the retries
      const tx = await withRetry(async () => await chain.resume({ signal: options.signal }), ownTxRetry('resume', options.signal))
      onPause({ ...pause, outcome: 'resumed', txHash: tx.hash, blockNumber: tx.blockNumber })
    } catch (err) {
      if (options.signal.aborted) throw err
      options.onError(err as Error)
    }
  }
}

/** A missed probe pauses in the transaction that records `ProbeMissed`; anything else was a verification task. */
async function causeOf (chain: ChainClient, me: string, paused: ChainEvent, signal: AbortSignal): Promise<OwnPause['cause']> {
  const missed = await chain.findEvents({ names: ['ProbeMissed'], topic1: me, fromBlock: paused.blockNumber, toBlock: paused.blockNumber }, { signal })
  return missed.some(m => m.transactionHash === paused.transactionHash) ? 'probe' : 'task'
}
