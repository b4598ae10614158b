import { DEFAULT_PHASE_TIMEOUT_MS, DEFAULT_SETTLEMENT_POLL_MS } from './constants.js'
import { pollUntil } from '../chain/index.js'
import type { SettlementOptions } from './types.js'
import type { ChainClient, EscrowJobState } from '../chain/index.js'

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

/** All k verifiers assigned and (all committed or the commit window over): reveals are open once the sample is proven. */
export function commitPhaseOver (j: EscrowJobState, head: number): boolean {
  return j.assigned === j.k && (j.commits === j.k || head > j.commitDeadline)
}

/** `settle` is possible: all revealed (a reveal needs the proven sample), or the reveal window is over. */
export function settleOpen (j: EscrowJobState, head: number): boolean {
  return j.assigned === j.k && (j.reveals === j.k || head > j.revealDeadline)
}
