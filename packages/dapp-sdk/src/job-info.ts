import { anySignal } from '@jobmesh/contracts'
import { decodeJobSpec } from '@jobmesh/peer/protocol'
import { CID } from 'multiformats/cid'
import { fetchContent } from './content.js'
import { DownloadError, JobNotFoundError } from './errors.js'
import type { EscrowJobState as EscrowJob } from '@jobmesh/contracts'
import type { ClientContext, KnownSpec } from './context.js'

/**
 * The spec of a job: from the client's cache (jobs it submitted), else the `JobCreated` event's spec CID, fetched
 * over IPFS and decoded.
 *
 * @throws JobNotFoundError, DownloadError, the chain errors
 */
export async function loadSpec (ctx: ClientContext, jobId: string, signal?: AbortSignal): Promise<KnownSpec> {
  const key = jobId.toLowerCase()
  const cached = ctx.specs.get(key)
  if (cached !== undefined) return cached
  const created = await ctx.chain.client.jobCreated(key, { signal })
  if (created === undefined) throw new JobNotFoundError(`no JobCreated event for ${jobId}`)
  let cid: CID
  try {
    cid = CID.parse(created.specCid)
  } catch (err) {
    throw new DownloadError(`job ${jobId} names an invalid spec CID ${created.specCid}`, { cause: err })
  }
  const bytes = await fetchContent(ctx.store, cid.toString(), { signal: anySignal([signal, ctx.stopped], ctx.settings.fetchTimeoutMs) })
  let known: KnownSpec
  try {
    known = { spec: decodeJobSpec(bytes), specCid: created.specCid }
  } catch (err) {
    throw new DownloadError(`the spec ${created.specCid} of ${jobId} does not decode: ${(err as Error).message}`, { cause: err })
  }
  ctx.specs.set(key, known)
  return known
}

/** The escrow's record of a job; JobNotFoundError when it has none. */
export async function loadEscrowJob (ctx: ClientContext, jobId: string, signal?: AbortSignal): Promise<EscrowJob> {
  const job = await ctx.chain.client.job(jobId, { signal })
  if (job.status === 'None') throw new JobNotFoundError(`the escrow has no job ${jobId}`)
  return job
}
