import { bondableNodes as bondableNodesOf } from '@jobmesh/peer/settlement'
import type { BondableNodes } from '@jobmesh/peer/settlement'
import type { ChainContext, ClientContext } from './context.js'
import type { EscrowJobState } from '@jobmesh/contracts'

/** A job this wallet created, as `list` shows it. */
export interface ListedJob extends EscrowJobState {
  specCid: string
  /** Block of its `JobCreated` event. */
  createdBlock: number
}

/**
 * The jobs `creator` (default: this client's wallet) created, oldest first, from the escrow's `JobCreated` events
 * since the deployment block, each with its current escrow record.
 *
 * @throws the chain errors (RpcUnreachableError, ChainTimeoutError, ChainRequestError), AbortError
 */
export async function listJobs (ctx: ChainContext, options: { creator?: string, signal?: AbortSignal } = {}): Promise<ListedJob[]> {
  const created = await ctx.chain.client.jobsCreatedBy(options.creator ?? ctx.chain.address, { signal: options.signal })
  const jobs: ListedJob[] = []
  for (const c of created) {
    const job = await ctx.chain.client.job(c.jobId, { signal: options.signal })
    jobs.push({ ...job, specCid: c.specCid, createdBlock: c.blockNumber })
  }
  return jobs
}

/**
 * Nodes registered and active in the NodeRegistry the escrow uses: verifiers are drawn among them, the submitter
 * of a job excluded, so a job with k verifiers needs k + 1 of them to be released.
 *
 * @throws the chain errors, AbortError
 */
export async function activeNodes (ctx: ChainContext, options: { signal?: AbortSignal } = {}): Promise<number> {
  return ctx.chain.client.activeNodes({ signal: options.signal })
}

/**
 * Which known nodes could lock the bond of a job paying `fee` ({@link JobClient.bondableNodes}): the peers' own rule.
 *
 * @throws the chain errors, AbortError
 */
export async function bondableNodes (ctx: ClientContext, fee: bigint, options: { signal?: AbortSignal } = {}): Promise<BondableNodes> {
  return await bondableNodesOf({ docs: ctx.docs, chain: ctx.chain.client }, fee, options)
}
