import { anySignal } from '@jobmesh/contracts'
import { describeJob, gatherPeerFacts, matchPeers } from '@jobmesh/peer/observe'
import { loadEscrowJob } from './job-info.js'
import type { ClientContext } from './context.js'
import type { JobStory } from '@jobmesh/peer/observe'

/** Which known peers can take a job with some requirements (`JobClient.matchingPeers`). */
export type PeerMatching = JobStory['matching']

export interface DescribeOptions {
  signal?: AbortSignal
  /** Per read (doc open, chain call), in ms. Default: the client's doc timeout. */
  timeoutMs?: number
}

/**
 * The job's story as this client sees it: announcement, how many peers match its requirements and why the others
 * do not, progress, finalizer, verifiers and their phase, and what it is waiting for now.
 *
 * @throws JobNotFoundError (the escrow has no such job, like `status`), the chain errors, AbortError
 */
export async function describeJobStory (ctx: ClientContext, jobId: string, options: DescribeOptions = {}): Promise<JobStory> {
  const signal = anySignal([options.signal, ctx.stopped])
  // every job is funded before it is announced: one the escrow does not know has no story to tell
  await loadEscrowJob(ctx, jobId, signal)
  const release = await ctx.jobDocs.hold(jobId)
  try {
    return await describeJob({ docs: ctx.docs, chain: ctx.chain.client, libp2p: ctx.node.libp2p, privateKey: ctx.node.privateKey, peerId: ctx.node.peerId.toString() }, jobId, {
      signal,
      timeoutMs: options.timeoutMs ?? ctx.settings.docTimeoutMs,
      macroDocs: 'all'
    })
  } finally {
    await release()
  }
}

/**
 * Which peers this client knows (their signed profiles, with their registry state) can take a job needing
 * `requirements`, and why the others cannot: what `describe` says of a job, before one is submitted.
 */
export async function matchingPeers (ctx: ClientContext, requirements: { minVramGb?: number, gpuModel?: string },
  options: DescribeOptions = {}): Promise<PeerMatching> {
  const signal = anySignal([options.signal, ctx.stopped])
  const peers = await gatherPeerFacts({ docs: ctx.docs, chain: ctx.chain.client }, { signal, timeoutMs: options.timeoutMs ?? ctx.settings.docTimeoutMs })
  return matchPeers({ minVramGb: requirements.minVramGb ?? 0, ...(requirements.gpuModel === undefined ? {} : { gpuModel: requirements.gpuModel }) }, peers)
}
