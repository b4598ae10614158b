import type { ClaimResult } from './claim.js'
import type { FinalizeResult } from './finalize.js'
import type { ProbeAnswer } from './probes.js'
import type { OwnPause } from './stay-in-draw.js'
import type { SettleResult } from './settle.js'
import type { SettlementOptions } from './types.js'
import type { VerifyResult } from './verify.js'
import type { RoundOracle } from '../jobs/index.js'

// The settlement service's public shape (service.ts builds it): what it is told, what it says, what it is asked.

export interface SettlementInit extends Omit<SettlementOptions, 'signal'> {
  /** First block the watchers scan; default: the head at `start()`. */
  fromBlock?: number
  /** Claim payouts and credits of Released jobs automatically. Default true. */
  autoClaim?: boolean
  /** Bound of all finalization attempts of one job (ms), default 10 min; attempts back off from 1 s to 30 s. */
  finalizeTimeoutMs?: number
  /** First pause before a finalization is retried (ms), default 1 000. */
  finalizeRetryMs?: number
  /** A job completed elsewhere and still not submitted after this long is taken over (ms), default 120 000 (`takeover.ts`). */
  takeoverGraceMs?: number
  /** Pause between the turns of the next takeover candidates (ms), default 60 000. */
  takeoverStepMs?: number
  /** PeerIds this node is connected to (takeover liveness); without it only the grace time and order count. */
  livePeers?(): string[]
  /** Mean pause between two probe scans of this peer (ms), default 60 000 (`probes.ts`). */
  probeScanMs?: number
}

export interface SettlementEvents {
  finalized: FinalizeResult & { jobId: string }
  verified: VerifyResult
  settled: SettleResult
  claimed: ClaimResult & { jobId: string }
  /** This peer re-announced a rejected job for its next round. */
  reannounced: { jobId: string, round: number }
  /**
   * The job is over on chain (released: after this peer's payouts were claimed, or the claim gave up; refunded): the
   * peer closes its docs (peer.ts). Seen again after a restart whose cursor is before it.
   */
  ended: { jobId: string, status: 'Released' | 'Refunded' }
  /** This peer drew another node's submission after its submitter's grace (paid the late-draw bounty). */
  drew: { jobId: string }
  /** This node answered a probe of the registry. */
  probed: ProbeAnswer
  /** The registry paused this running node (a missed task or probe): it resumed itself, or stayed paused. */
  paused: OwnPause
  error: { jobId?: string, step: string, error: Error }
}

/**
 * The peer's settlement service: finalizes completed jobs, serves as verifier when drawn, settles and claims, and
 * re-announces rejected jobs for their next round. It is the processor's {@link RoundOracle}.
 */
export interface Settlement extends EventTarget, RoundOracle {
  /**
   * Starts the watchers: `VerifierAssigned` for this node (verifier duty), `JobReleased` (claims, then `ended`) and
   * `JobRefunded` (`ended`), `JobRejected` (re-announce the job for its next round) and `ResultsSubmitted` /
   * `VerificationRestarted` (draw another node's submission when its submitter let the grace pass); also re-announces
   * announced jobs whose round on chain is ahead.
   */
  start(options?: SettlementStartOptions): Promise<void>
  /** Aborts every watcher and running step, and waits for them. */
  stop(): Promise<void>
  /**
   * A stop's first step: aborts every watcher and running step at once, without waiting (`stop` waits). From here the
   * node sends no new transaction: a finalization not submitted yet stays a duty for the next start (and for the
   * job's other peers to take over) instead of a submission whose verifier draw the stopped node could not make.
   */
  halt(): void
  /**
   * The processor's `onJobComplete` hook: finalizes the job, then draws verifiers, proves and settles in the
   * background (the release is claimed by the `JobReleased` watcher). Resolves after the finalization.
   */
  onJobComplete(jobId: string): Promise<FinalizeResult>
  /** Jobs this peer is finalizing now (`jobmesh status`). */
  finalizing(): string[]
  /**
   * The duties journaled now, which a stop keeps for the next start (docs/settlement.md, Restarts): finalizations,
   * the draw and settlement of this node's submissions, verifications. Empty without a journal.
   */
  duties(): Promise<SettlementDuty[]>
  /**
   * The processor's hook on a job completed by another peer's result: if it is still not submitted after the
   * grace time, the live peers of the job take over its finalization one at a time (`takeover.ts`).
   */
  onJobCompletedElsewhere(jobId: string): void
}

/** A journaled duty: `finalize` (a completed job's submission), `settle` (its draw, proof and settlement), `verify`. */
export interface SettlementDuty {
  kind: 'finalize' | 'settle' | 'verify'
  jobId: string
}

/** What {@link Settlement.start} is told about this start. */
export interface SettlementStartOptions {
  /**
   * The earliest block the watchers must see: the head before this node registered (or topped up its stake), since
   * the registry draws a waiting job's verifiers from a node in the very block that registers it. Default: the head
   * at `start()`. A saved cursor that is earlier (a restart) still wins.
   */
  since?: number
}
