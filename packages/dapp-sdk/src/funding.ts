import { ChainRevertError } from '@jobmesh/contracts'
import { logger } from '@libp2p/logger'
import { formatEther, isError } from 'ethers'
import { FundingUnknownError, InsufficientFundsError } from './errors.js'
import type { ClientContext } from './context.js'
import type { ChainEvent, CreateJobInput } from '@jobmesh/contracts'
import type { JobSpec } from '@jobmesh/peer/protocol'

const log = logger('jobmesh:sdk')

/** What `submit` goes on with once a job is funded: its id and task value as the escrow has them, and its transaction. */
export interface FundedJob {
  jobId: string
  /** The escrow's task value of the job (wei per second, its `JobCreated` event). */
  taskValue: bigint
  /** Hash of the `createJob` transaction. */
  hash: string
  /** Block the job was created in. */
  blockNumber: number
}

/** A job to fund: its spec (the fee is its price), the id computed before the transaction, and the `createJob` input. */
export interface FundingRequest {
  spec: JobSpec
  jobId: string
  params: CreateJobInput
  signal?: AbortSignal
}

/**
 * Creates and funds the job in the escrow. A funding whose outcome is lost (no receipt within the transaction timeout,
 * a send that failed after the transaction may have reached the pool) is looked up: the job's `JobCreated` event since
 * the block before the send. Found, the job is funded and returned as `createJob` would; not found, or not to be
 * asked, it is a FundingUnknownError.
 *
 * @throws ChainRevertError (explained in plain words), InsufficientFundsError, AbortError: the escrow refused the job,
 * or the wallet cannot pay, or the caller stopped; FundingUnknownError: the outcome is unknown; the other chain errors
 * of the head block read before the send
 */
export async function fundJob (ctx: ClientContext, request: FundingRequest): Promise<FundedJob> {
  const { spec, jobId, params, signal } = request
  const fromBlock = await ctx.chain.client.blockNumber({ signal })
  try {
    return await ctx.chain.client.createJob(params, spec.price, { signal })
  } catch (err) {
    if (!mayHaveLanded(err)) throw await explainCreate(ctx, err, spec, jobId, signal)
    return await recoverFunding(ctx, jobId, fromBlock, err, signal)
  }
}

/**
 * Chain errors after which the funding transaction may have been mined all the same (a request that failed or timed
 * out, an endpoint gone). A decoded revert, a wallet that cannot pay, the caller's abort or a local error (a value the
 * ABI cannot encode) says it was not.
 */
const UNKNOWN_OUTCOME = new Set(['ChainTimeoutError', 'ChainRequestError', 'RpcUnreachableError'])

function mayHaveLanded (err: unknown): boolean {
  return UNKNOWN_OUTCOME.has((err as Error | undefined)?.name ?? '') && !isInsufficientFunds(err)
}

/** The job of a funding whose outcome was lost, if the chain shows it created; else a FundingUnknownError. */
async function recoverFunding (ctx: ClientContext, jobId: string, fromBlock: number, err: unknown, signal?: AbortSignal): Promise<FundedJob> {
  const why = `${(err as Error)?.name ?? 'Error'}: ${(err as Error)?.message ?? String(err)}`
  let found: FundedJob | undefined
  try {
    found = await findFunding(ctx, jobId, fromBlock, signal)
  } catch (lookup) {
    log('%s: the funding failed (%s) and looking the job up failed too: %e', jobId, why, lookup)
  }
  if (found === undefined) throw fundingUnknown(jobId, why, err)
  log('%s: the funding failed (%s) but the job is funded: JobCreated in block %d (tx %s)', jobId, why, found.blockNumber, found.hash)
  return found
}

/** The job's `JobCreated` event in blocks `fromBlock` to the head, as a funded job; undefined when there is none. */
async function findFunding (ctx: ClientContext, jobId: string, fromBlock: number, signal?: AbortSignal): Promise<FundedJob | undefined> {
  const events = await ctx.chain.client.findEvents({ names: ['JobCreated'], topic1: jobId, fromBlock }, { signal })
  const created = events.find(e => e.name === 'JobCreated')
  return created === undefined ? undefined : fundedBy(created)
}

function fundedBy (event: ChainEvent): FundedJob {
  return {
    jobId: String(event.args.jobId).toLowerCase(),
    taskValue: BigInt(event.args.taskValue as bigint),
    hash: event.transactionHash,
    blockNumber: event.blockNumber
  }
}

function fundingUnknown (jobId: string, why: string, cause: unknown): FundingUnknownError {
  return new FundingUnknownError(`the outcome of the funding transaction of job ${jobId} is unknown (${why}) and the chain shows ` +
    `no such job yet: it may still be funded. Run jobmesh-dapp status ${jobId} before submitting again: a new submit creates ` +
    'and pays for a second job', jobId, { cause })
}

/** The wallet cannot pay the job's fee and the gas of its funding transaction: its balance and what the job needs. */
export function fundsError (address: string, balance: bigint, fee: bigint, what: string, cause?: unknown): InsufficientFundsError {
  return new InsufficientFundsError(`wallet ${address} has ${formatEther(balance)} ETH, needs ${formatEther(fee)} ETH (the job's fee) + gas; ${what}`, { cause })
}

/** Whether a failed transaction failed for want of ETH (the node's "insufficient funds", found by ethers). */
function isInsufficientFunds (err: unknown): boolean {
  for (let e = err; e != null; e = (e as { cause?: unknown }).cause) {
    if (isError(e, 'INSUFFICIENT_FUNDS')) return true
  }
  return false
}

/**
 * A failed funding of known outcome in plain words: a wallet that cannot pay (its balance), the escrow's refusal of a
 * fee too small or of a deadline (the chain's clock moved between the check and the block), the same ChainRevertError
 * with `errorName` and `errorArgs` kept; any other error as it is.
 */
async function explainCreate (ctx: ClientContext, err: unknown, spec: JobSpec, jobId: string, signal?: AbortSignal): Promise<unknown> {
  if (isInsufficientFunds(err)) {
    const balance = await ctx.chain.client.balance(ctx.chain.address, { signal }).catch(() => undefined)
    if (balance !== undefined) return fundsError(ctx.chain.address, balance, spec.price, `job ${jobId} was not created, nothing was paid`, err)
  }
  const deadline = spec.deadline
  const e = err as ChainRevertError
  if (e?.name !== ChainRevertError.name) return err
  if (e.errorName === 'InvalidDeadline') {
    return new ChainRevertError(`the escrow refused the deadline ${new Date(deadline).toISOString()}: by the chain's clock it is in the past, ` +
      'or further away than the escrow\'s maxDeadline (JobEscrow.createJob reverted: InvalidDeadline)', e.errorName, e.errorArgs, { cause: e })
  }
  if (e.errorName !== 'UnderfundedJob') return err
  const [sent, minimum] = e.errorArgs.map(a => BigInt(a as bigint))
  return new ChainRevertError(`${underfundedText(sent, minimum)} (JobEscrow.createJob reverted: UnderfundedJob)`, e.errorName, e.errorArgs, { cause: e })
}

/** Why the escrow refuses a fee (`UnderfundedJob`), in the words both the SDK's own check and the revert use. */
export function underfundedText (fee: bigint, minimum: bigint, minFee?: bigint): string {
  return `the fee of ${formatEther(fee)} ETH is below this job's minimum of ${formatEther(minimum)} ETH: each verifier's share of ` +
    `the fee must reach the escrow's minFee${minFee === undefined ? '' : ` of ${formatEther(minFee)} ETH`}`
}
