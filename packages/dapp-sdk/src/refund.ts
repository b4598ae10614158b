import { ChainRevertError, JOB_STATUS_NAMES, revertName } from '@jobmesh/contracts'
import { isoSeconds, timeLeft } from '@jobmesh/peer/observe'
import { settleOpen } from '@jobmesh/peer/settlement'
import { logger } from '@libp2p/logger'
import { JobNotFoundError, JobRefundedError } from './errors.js'
import { requireSigning } from './chain/connection.js'
import { chainNow } from './job-info.js'
import type { ChainContext } from './context.js'
import { progressReporter } from './progress-report.js'
import type { EscrowJobState } from '@jobmesh/contracts'

const log = logger('jobmesh:sdk')

/** Stages of a refund, in order: `settling` only when a verification round is due to be settled first. */
export type RefundStage = 'settling' | 'settled' | 'refunding'

/** A progress report of `refund`. */
export interface RefundProgress {
  stage: RefundStage
  /** `settled`: the settle transaction (absent when someone else settled the round first). */
  txHash?: string
  blockNumber?: number
}

export interface RefundOptions {
  onProgress?(progress: RefundProgress): void
  signal?: AbortSignal
}

/** A refunded job: its refund transaction, where the fee went, and the settle transaction `refund` sent first, if any. */
export interface Refund {
  txHash: string
  blockNumber: number
  /** The job's creator, whom the escrow paid the fee back (whoever sent the refund). */
  creator: string
  /** The fee paid back (wei). */
  feeWei: bigint
  /** The verification round `refund` settled before it refunded (nobody else had). */
  settled?: { txHash: string, blockNumber: number }
}

/**
 * The escrow's refusal of a refund in plain words: the same ChainRevertError (`errorName`, `errorArgs` kept), its
 * message naming the job's status, or its deadline (ISO, UTC) and how long is left by the chain's clock.
 */
async function explain (ctx: ChainContext, jobId: string, err: unknown, signal?: AbortSignal): Promise<unknown> {
  if ((err as Error | undefined)?.name !== ChainRevertError.name) return err
  const e = err as ChainRevertError
  const id = jobId.toLowerCase()
  const plain = (message: string): ChainRevertError =>
    new ChainRevertError(`${message} (JobEscrow.refund reverted: ${e.errorName})`, e.errorName, e.errorArgs, { cause: e })
  switch (e.errorName) {
    case 'WrongStatus': {
      const code = Number(e.errorArgs[1])
      const status = JOB_STATUS_NAMES[code] ?? `in status ${code}`
      return plain(`job ${id} is ${status}: only an Open job, or a Submitted one whose verifiers are not drawn yet, can be refunded, after its deadline`)
    }
    case 'DeadlineNotReached': {
      const deadline = Number(e.errorArgs[0])
      const left = deadline - await chainNow(ctx, signal)
      return plain(`job ${id} can be refunded only after its deadline ${isoSeconds(deadline)}: ${timeLeft(left)} left by the chain's clock`)
    }
    case 'UnknownJob':
      return new JobNotFoundError(`the escrow has no job ${id}`, { cause: e })
    case 'VerificationUnderway':
      return plain(await underway(ctx, id, signal))
    default:
      return err
  }
}

/** Why a verification under way blocks the refund, and from which block `refund` can settle it itself. */
async function underway (ctx: ChainContext, id: string, signal?: AbortSignal): Promise<string> {
  const what = `job ${id} is being verified (its verifiers are drawn)`
  const [j, head] = await Promise.all([ctx.chain.client.job(id, { signal }), ctx.chain.client.blockNumber({ signal })]).catch(() => [undefined, undefined])
  if (j === undefined || head === undefined || j.assigned !== j.k || j.revealDeadline === 0) {
    return `${what}: it can be refunded only once that verification is settled; after its deadline refund settles it first`
  }
  return `${what}: its round can be settled after block ${j.revealDeadline} (the end of its reveal window; the chain is at block ${head}, ` +
    `${Math.max(1, j.revealDeadline + 1 - head)} more to go); from then on refund settles it first, then refunds`
}

/** A verification round past the job's deadline that anyone may settle now: all verifiers revealed, or the reveal window is over. */
function settleDue (j: EscrowJobState, head: number, now: number): boolean {
  if (j.status !== 'Submitted' || j.assigned === 0 || now <= j.deadline) return false
  // verifiers still missing after the deadline: settle reopens the job
  return j.assigned < j.k || settleOpen(j, head)
}

/**
 * Settles the job's verification round when it is due (past the deadline, nobody settled it: its peers may be gone),
 * so that the refund can follow. Idempotent: a round someone else settled meanwhile is taken as settled.
 */
async function settleIfDue (ctx: ChainContext, jobId: string, report: (p: RefundProgress) => void, signal?: AbortSignal): Promise<Refund['settled']> {
  // the chain's own clock: this decides a transaction, not a message
  const [j, head, now] = await Promise.all([ctx.chain.client.job(jobId, { signal }), ctx.chain.client.blockNumber({ signal }), ctx.chain.client.chainTime({ signal })])
  if (!settleDue(j, head, now)) return undefined
  report({ stage: 'settling' })
  try {
    const mined = await ctx.chain.client.settle(jobId, { signal })
    log('settled the verification round of %s in block %d (tx %s)', jobId, mined.blockNumber, mined.hash)
    report({ stage: 'settled', txHash: mined.hash, blockNumber: mined.blockNumber })
    return { txHash: mined.hash, blockNumber: mined.blockNumber }
  } catch (err) {
    // WrongStatus: settled (released, reopened) or refunded by someone else since the read
    const name = revertName(err)
    if (name !== 'WrongStatus') throw err
    report({ stage: 'settled' })
    return undefined
  }
}

/**
 * `JobEscrow.refund`, its refusals explained (see {@link JobClient.refund}). A verification round that is due to be
 * settled (past the deadline, its reveal window over) is settled first: anyone may, and its peers may be gone.
 */
export async function refundJob (ctx: ChainContext, jobId: string, options: RefundOptions = {}): Promise<Refund> {
  const signal = options.signal
  requireSigning(ctx.chain, 'a refund')
  const report = progressReporter<RefundProgress>(options.onProgress)
  // the escrow takes a second refund as a no-op that still costs gas: a refunded job is refused here
  const job = await ctx.chain.client.job(jobId, { signal })
  const status = job.status
  if (status === 'None') throw new JobNotFoundError(`the escrow has no job ${jobId.toLowerCase()}`)
  if (status === 'Refunded') throw new JobRefundedError(`job ${jobId.toLowerCase()} was refunded already: its fee went back to its creator`)
  const settled = status === 'Submitted' ? await settleIfDue(ctx, jobId, report, signal) : undefined
  report({ stage: 'refunding' })
  try {
    const mined = await ctx.chain.client.refund(jobId, { signal })
    return { txHash: mined.hash, blockNumber: mined.blockNumber, creator: job.creator, feeWei: job.fee, ...(settled === undefined ? {} : { settled }) }
  } catch (err) {
    throw await explain(ctx, jobId, err, signal)
  }
}
