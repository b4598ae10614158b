import { ChainRevertError, JOB_STATUS_NAMES } from '@jobmesh/contracts'
import { JobNotFoundError, JobRefundedError } from './errors.js'
import type { ClientContext } from './context.js'

/** Unix seconds as `2026-11-28T12:00:00Z`. */
function isoSeconds (seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/\.000Z$/, 'Z')
}

/** A span of seconds for people: `6 d 23 h`, `23 h 59 min`, `4 min 10 s`, `42 s`. */
export function span (seconds: number): string {
  const s = Math.max(0, Math.floor(seconds))
  const [d, h, m] = [Math.floor(s / 86_400), Math.floor(s / 3_600) % 24, Math.floor(s / 60) % 60]
  if (d > 0) return `${d} d ${h} h`
  if (h > 0) return `${h} h ${m} min`
  if (m > 0) return `${m} min ${s % 60} s`
  return `${s} s`
}

/** The chain's clock (what the escrow compares the deadline with); the local one if unreadable. */
async function chainNow (ctx: ClientContext, signal?: AbortSignal): Promise<number> {
  // the local clock is close enough for a message
  return await ctx.chain.client.chainTime({ signal }).catch(() => Math.floor(Date.now() / 1000))
}

/**
 * The escrow's refusal of a refund in plain words: the same ChainRevertError (`errorName`, `errorArgs` kept), its
 * message naming the job's status, or its deadline (ISO, UTC) and how long is left by the chain's clock.
 */
async function explain (ctx: ClientContext, jobId: string, err: unknown, signal?: AbortSignal): Promise<unknown> {
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
      return plain(`job ${id} can be refunded only after its deadline ${isoSeconds(deadline)}: ${span(left)} left by the chain's clock`)
    }
    case 'UnknownJob':
      return new JobNotFoundError(`the escrow has no job ${id}`, { cause: e })
    case 'VerificationUnderway':
      return plain(`job ${id} is being verified (its verifiers are drawn): it can be refunded only once that verification is settled`)
    default:
      return err
  }
}

/** `JobEscrow.refund`, its refusals explained (see {@link JobClient.refund}). */
export async function refundJob (ctx: ClientContext, jobId: string, signal?: AbortSignal): Promise<{ txHash: string, blockNumber: number }> {
  // the escrow takes a second refund as a no-op that still costs gas: a refunded job is refused here
  const status = await ctx.chain.client.jobStatus(jobId, { signal })
  if (status === 'None') throw new JobNotFoundError(`the escrow has no job ${jobId.toLowerCase()}`)
  if (status === 'Refunded') throw new JobRefundedError(`job ${jobId.toLowerCase()} was refunded already: its fee went back to its creator`)
  try {
    const mined = await ctx.chain.client.refund(jobId, { signal })
    return { txHash: mined.hash, blockNumber: mined.blockNumber }
  } catch (err) {
    throw await explain(ctx, jobId, err, signal)
  }
}
