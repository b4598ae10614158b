import { connect } from '@jobmesh/contracts'
import { race } from './abort.js'
import { wrapChainError } from './chain/wrap.js'
import { ChainError } from './errors.js'
import type { ClientContext } from './context.js'
import type { EscrowJob } from './chain/escrow.js'

/** A job this wallet created, as `list` shows it. */
export interface ListedJob extends EscrowJob {
  specCid: string
  /** Block of its `JobCreated` event. */
  createdBlock: number
}

async function call<T> (ctx: ClientContext, what: string, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  try {
    return await race(fn(), {
      signal,
      timeoutMs: ctx.settings.rpcTimeoutMs,
      what,
      onTimeout: () => new ChainError(`${what} got no answer within ${ctx.settings.rpcTimeoutMs} ms`)
    })
  } catch (err) {
    throw wrapChainError(err, what)
  }
}

/**
 * The jobs `creator` (default: this client's wallet) created, oldest first, from the escrow's `JobCreated` events
 * since the deployment block, each with its current escrow record.
 *
 * @throws ChainError, AbortError
 */
export async function listJobs (ctx: ClientContext, options: { creator?: string, signal?: AbortSignal } = {}): Promise<ListedJob[]> {
  const escrow = ctx.chain.escrow.contract
  const creator = options.creator ?? ctx.chain.address
  const events = await call(ctx, 'JobCreated events', async () =>
    await escrow.queryFilter(escrow.filters.JobCreated(undefined, creator), ctx.fromBlock), options.signal)
  const jobs: ListedJob[] = []
  for (const e of events) {
    if (!('args' in e)) continue
    const jobId = String(e.args.jobId).toLowerCase()
    const job = await ctx.chain.escrow.job(jobId, { signal: options.signal })
    jobs.push({ ...job, specCid: String(e.args.specCid), createdBlock: e.blockNumber })
  }
  return jobs
}

/**
 * Nodes registered and active in the NodeRegistry the escrow uses: verifiers are drawn among them, the submitter
 * of a job excluded, so a job with k verifiers needs k + 1 of them to be released.
 *
 * @throws ChainError, AbortError
 */
export async function activeNodes (ctx: ClientContext, options: { signal?: AbortSignal } = {}): Promise<number> {
  const escrow = ctx.chain.escrow.contract
  const registry = await call(ctx, 'JobEscrow.registry', async () => String(await escrow.registry()), options.signal)
  const { nodeRegistry } = connect({ nodeRegistry: registry, jobEscrow: await escrow.getAddress() }, ctx.chain.provider)
  return Number(await call(ctx, 'NodeRegistry.activeNodes', async () => await nodeRegistry.activeNodes(), options.signal))
}
