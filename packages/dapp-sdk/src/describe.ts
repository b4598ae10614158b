import { createChainClient, withTimeout } from '@jobmesh/peer/chain'
import { describeJob } from '@jobmesh/peer/observe'
import { anySignal } from './abort.js'
import type { ClientContext } from './context.js'
import type { ChainClient } from '@jobmesh/peer/chain'
import type { JobStory } from '@jobmesh/peer/observe'

export interface DescribeOptions {
  signal?: AbortSignal
  /** Per read (doc open, chain call), in ms. Default: the client's doc timeout. */
  timeoutMs?: number
}

/** A read-only chain client of the peer's chain layer over the SDK's provider (the registry address from the escrow). */
async function readOnlyChain (ctx: ClientContext, signal?: AbortSignal): Promise<ChainClient> {
  const nodeRegistry = ctx.deployment.nodeRegistry ??
    String(await withTimeout(ctx.chain.escrow.contract.registry() as Promise<string>, ctx.settings.rpcTimeoutMs, 'JobEscrow.registry', signal))
  return createChainClient({ provider: ctx.chain.provider, deployment: { jobEscrow: ctx.chain.escrow.address, nodeRegistry, blockNumber: ctx.fromBlock } },
    { rpcTimeoutMs: ctx.settings.rpcTimeoutMs })
}

/**
 * The job's story as this client sees it: announcement, how many peers match its requirements and why the others
 * do not, progress, finalizer, verifiers and their phase, and what it is waiting for now.
 *
 * @throws ChainError, AbortError
 */
export async function describeJobStory (ctx: ClientContext, jobId: string, options: DescribeOptions = {}): Promise<JobStory> {
  const signal = anySignal([options.signal, ctx.stopped])
  const chain = await readOnlyChain(ctx, signal)
  return describeJob({ docs: ctx.docs, chain, privateKey: ctx.node.privateKey, peerId: ctx.node.peerId.toString() }, jobId, {
    signal,
    timeoutMs: options.timeoutMs ?? ctx.settings.docTimeoutMs
  })
}
