import { DEFAULT_PHASE_TIMEOUT_MS, DEFAULT_SETTLEMENT_POLL_MS } from './constants.js'
import { pollUntil, revertName } from '@jobmesh/contracts'
import type { SettlementOptions } from './types.js'
import type { ChainClient, EscrowJobState } from '@jobmesh/contracts'

/** The options of a wait inside one verification round. */
export interface RoundWaitOptions extends SettlementOptions {
  /** The round waited in (its `submitBlock`): the wait also returns once that round is over (see {@link inRound}). */
  round?: number
}

/**
 * True while the round that started at `round` (its submitBlock) still runs with all k verifiers: `settle` restarts a
 * round without a quorum by clearing its verifiers and moving submitBlock to the restart block, after which the
 * submitter draws again. A wait of the old round that went on would wait for a phase that never comes.
 */
export function inRound (j: EscrowJobState, round: number): boolean {
  return j.status === 'Submitted' && j.assigned === j.k && j.submitBlock === round
}

/**
 * Polls the job until `ready` says yes (returns that state); also returns when the job left `Submitted`, and, with
 * `options.round`, when that round is over.
 */
export async function waitForJob (chain: ChainClient, jobId: string, what: string, ready: (j: EscrowJobState, head: number) => boolean,
  options: RoundWaitOptions): Promise<EscrowJobState> {
  const round = options.round
  return pollUntil(async () => {
    const [j, head] = await Promise.all([chain.job(jobId, options), chain.blockNumber(options)])
    return j.status !== 'Submitted' || (round != null && !inRound(j, round)) || ready(j, head) ? j : undefined
  }, {
    pollMs: options.pollMs ?? DEFAULT_SETTLEMENT_POLL_MS,
    timeoutMs: options.phaseTimeoutMs ?? DEFAULT_PHASE_TIMEOUT_MS,
    what: `${what} of ${jobId}`,
    signal: options.signal
  })
}

/**
 * Waits until the round's sample is fixed (every drawn verifier revealed its seed). Once the seed window is over
 * and it still is not, closes it: anyone may, and the submitter needs a fixed sample to prove. With `options.round`
 * it also returns once that round is over.
 */
export async function waitForSample (chain: ChainClient, jobId: string, options: RoundWaitOptions): Promise<EscrowJobState> {
  for (;;) {
    const j = await waitForJob(chain, jobId, 'sample', (j, head) =>
      j.entropySet || (j.assigned === j.k && j.seedDeadline !== 0 && head > j.seedDeadline), options)
    if (j.status !== 'Submitted' || j.entropySet || (options.round != null && !inRound(j, options.round))) return j
    try {
      await chain.closeSeeds(jobId, options)
    } catch (err) {
      // settled or restarted by someone else between the read and the transaction
      const name = revertName(err)
      if (name !== 'WrongStatus' && name !== 'VerifiersIncomplete') throw err
    }
  }
}

/** All k verifiers assigned and (all committed or the commit window over): reveals are open once the sample is proven. */
export function commitPhaseOver (j: EscrowJobState, head: number): boolean {
  return j.assigned === j.k && (j.commits === j.k || head > j.commitDeadline)
}

/** `settle` is possible: all revealed (a reveal needs the proven sample), or the reveal window is over. */
export function settleOpen (j: EscrowJobState, head: number): boolean {
  return j.assigned === j.k && (j.reveals === j.k || head > j.revealDeadline)
}
