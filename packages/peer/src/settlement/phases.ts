import { DEFAULT_PHASE_TIMEOUT_MS, DEFAULT_SETTLEMENT_POLL_MS } from './constants.js'
import { pollUntil } from '@jobmesh/contracts'
import type { SettlementOptions } from './types.js'
import type { ChainClient, EscrowJobState } from '@jobmesh/contracts'

/** Polls the job until `ready` says yes (returns that state); also returns when the job left `Submitted`. */
export async function waitForJob (chain: ChainClient, jobId: string, what: string, ready: (j: EscrowJobState, head: number) => boolean,
  options: SettlementOptions): Promise<EscrowJobState> {
  return pollUntil(async () => {
    const [j, head] = await Promise.all([chain.job(jobId, options), chain.blockNumber(options)])
    return j.status !== 'Submitted' || ready(j, head) ? j : undefined
  }, {
    pollMs: options.pollMs ?? DEFAULT_SETTLEMENT_POLL_MS,
    timeoutMs: options.phaseTimeoutMs ?? DEFAULT_PHASE_TIMEOUT_MS,
    what: `${what} of ${jobId}`,
    signal: options.signal
  })
}

/**
 * Waits until the round's sample is fixed (every drawn verifier revealed its seed). Once the seed window is over
 * and it still is not, closes it: anyone may, and the submitter needs a fixed sample to prove.
 */
export async function waitForSample (chain: ChainClient, jobId: string, options: SettlementOptions): Promise<EscrowJobState> {
  for (;;) {
    const j = await waitForJob(chain, jobId, 'sample', (j, head) =>
      j.entropySet || (j.assigned === j.k && j.seedDeadline !== 0 && head > j.seedDeadline), options)
    if (j.status !== 'Submitted' || j.entropySet) return j
    try {
      await chain.closeSeeds(jobId, options)
    } catch (err) {
      // settled or restarted by someone else between the read and the transaction
      const name = (err as { errorName?: string }).errorName
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
