import { revertName } from '@jobmesh/contracts'
import { logger } from '@libp2p/logger'
import { inRound, settleOpen, waitForJob, waitForSample } from './phases.js'
import { proveSample } from './prove.js'
import { DRAW_GRACE_BLOCKS } from '../protocol/index.js'
import { LATE_DRAW_SPREAD_BLOCKS, REDRAW_BLOCKS } from './constants.js'
import type { Manifest } from './manifest.js'
import type { SettlementComponents, SettlementOptions } from './types.js'

const log = logger('jobmesh:settlement')

export interface SettleResult {
  jobId: string
  /** Status after settling: `Released`, `Open` (rejected, reopened), `Submitted` (round restarted: nobody revealed). */
  status: string
  released: boolean
  rejected: boolean
}

/**
 * Calls `selectVerifiers` from block submitBlock + 2 on, until all k verifiers are assigned. Missing verifiers wait
 * in the escrow's verification queue, served when a node frees up; a node that was already idle when the job was
 * queued triggers nothing, so the draw is tried again every {@link REDRAW_BLOCKS} blocks while the job waits.
 */
export async function drawVerifiers (components: Pick<SettlementComponents, 'chain'>, jobId: string, options: SettlementOptions = {}): Promise<void> {
  const { chain } = components
  const id = jobId.toLowerCase()
  let triedAt = -Infinity
  for (;;) {
    let job = await waitForJob(chain, id, 'entropy block', (j, head) => j.assigned === j.k ||
      (j.drawn ? head >= triedAt + REDRAW_BLOCKS : head >= j.submitBlock + 2), options)
    if (job.status !== 'Submitted' || job.assigned === job.k) return
    try {
      triedAt = await chain.blockNumber({ signal: options.signal })
      await chain.selectVerifiers(id, options)
    } catch (err) {
      // past the deadline no draw starts: the round is settled open (the bond unlocked), and the creator may refund
      if (revertName(err) === 'DeadlinePassed') {
        await reopenExpired(chain, id, options)
        return
      }
      // TooEarly: the entropy block was re-anchored meanwhile; WrongStatus: settled by someone else
      if (revertName(err) !== 'TooEarly' && revertName(err) !== 'WrongStatus') throw err
    }
    job = await chain.job(id, options)
    if (job.status !== 'Submitted' || job.assigned === job.k) return
    if (job.drawn) log('%s waits in the verification queue for %d of %d verifiers', id, job.k - job.assigned, job.k)
  }
}

/**
 * Settles a submission whose verifiers were not all drawn by its deadline: the escrow reopens it (no verification can
 * finish in time) and unlocks the submitter's bond; the creator may refund it. Settled by someone else meanwhile: done.
 */
async function reopenExpired (chain: SettlementComponents['chain'], jobId: string, options: SettlementOptions): Promise<void> {
  try {
    await chain.settle(jobId, { signal: options.signal })
    log('%s passed its deadline before its verifiers were drawn: reopened, refundable', jobId)
  } catch (err) {
    if (revertName(err) !== 'WrongStatus' && revertName(err) !== 'VerifiersIncomplete') throw err
  }
}

/**
 * The watcher's draw of another node's submission: once the submitter's grace (`DRAW_GRACE_BLOCKS` after its entropy
 * block) plus a random spread is over and nobody drew, calls `selectVerifiers`, which fixes the sample and pays this
 * node the escrow's late-draw bounty from the submitter's bond. So a submitter that sits on its draw, hoping the
 * 256-block window lapses for a re-roll, is preempted (docs/settlement.md, Defences 2). Resolves true when this node
 * drew, false when the job was drawn, settled or is this node's own.
 */
export async function drawIfLate (components: Pick<SettlementComponents, 'chain'>, jobId: string,
  options: SettlementOptions & { random?: () => number } = {}): Promise<boolean> {
  const { chain } = components
  const id = jobId.toLowerCase()
  const me = (await chain.address()).toLowerCase()
  const spread = Math.floor((options.random ?? Math.random)() * LATE_DRAW_SPREAD_BLOCKS)
  const job = await waitForJob(chain, id, 'late draw', (j, head) =>
    j.drawn || j.submitter.toLowerCase() === me || head > j.submitBlock + 1 + DRAW_GRACE_BLOCKS + spread, options)
  if (job.status !== 'Submitted' || job.drawn || job.submitter.toLowerCase() === me) return false
  try {
    await chain.selectVerifiers(id, options)
  } catch (err) {
    // drawn, re-anchored or settled by someone else between the read and the transaction, or past the deadline
    if (!['TooEarly', 'WrongStatus', 'DeadlinePassed'].includes(revertName(err) ?? '')) throw err
    return false
  }
  log('drew %s after its submitter\'s grace', id)
  return true
}

/**
 * Proves the sample against resultRoot as soon as the entropy is set (so verifiers can judge the proven leaves),
 * then settles once all verifiers revealed or the reveal window passed. Any peer with the manifest may call it;
 * every step is idempotent. It settles the round drawn when it is called: a round not fully drawn, or restarted
 * meanwhile by another peer's `settle`, returns at once with status `Submitted` (the submitter draws again).
 *
 * @throws InvalidManifestError, ChainRevertError, ChainTimeoutError, ...
 */
export async function proveAndSettle (components: Pick<SettlementComponents, 'chain' | 'docs' | 'store'>, jobId: string,
  options: SettlementOptions & { manifest?: Manifest } = {}): Promise<SettleResult> {
  const { chain } = components
  const id = jobId.toLowerCase()
  const signal = options.signal
  // the round this call settles; once it is over (restarted without a quorum), the caller draws the next one
  const start = await chain.job(id, { signal })
  if (start.status !== 'Submitted' || start.assigned !== start.k) return settleResult(id, start.status)
  const round = start.submitBlock
  let job = await waitForSample(chain, id, { ...options, round })
  if (!inRound(job, round)) return settleResult(id, job.status)
  if (!job.proven) {
    try {
      await proveSample(components, id, job, options)
    } catch (err) {
      // no manifest to prove from (its submitter gone with it, or a bad one): the round is settled against the submitter
      if ((err as Error).name !== 'InvalidManifestError') throw err
      log('cannot prove the sample of %s: %s', id, (err as Error).message)
    }
  }
  job = await waitForJob(chain, id, 'reveal window', settleOpen, { ...options, round })
  if (inRound(job, round)) {
    try {
      const tx = await chain.settle(id, { signal })
      const outcome = tx.events.find(e => e.name === 'JobReleased' || e.name === 'JobRejected' || e.name === 'VerificationRestarted' || e.name === 'JobReopened')
      log('settled %s: %s', id, outcome?.name ?? 'already settled')
    } catch (err) {
      // VerifiersIncomplete: the round restarted meanwhile (settled by someone else); the caller draws again
      if (revertName(err) !== 'WrongStatus' && revertName(err) !== 'VerifiersIncomplete') throw err
    }
  }
  // whoever settled: Released, or Open again after a rejection (a restarted round stays Submitted)
  return settleResult(id, await chain.jobStatus(id, { signal }))
}

function settleResult (jobId: string, status: string): SettleResult {
  return { jobId, status, released: status === 'Released', rejected: status === 'Open' }
}
