import { anySignal } from '@jobmesh/contracts'
import { decodeJobSpec } from '@jobmesh/peer/protocol'
import { CID } from 'multiformats/cid'
import { fetchContent } from './content.js'
import { DownloadError, JobNotFoundError, TimeoutError } from './errors.js'
import type { EscrowJobState as EscrowJob } from '@jobmesh/contracts'
import type { ChainContext, ClientContext, KnownSpec } from './context.js'

/**
 * The spec of a job: from the client's cache (jobs it submitted), else the `JobCreated` event's spec CID, fetched
 * over IPFS (within `fetchTimeoutMs`, default the client's) and decoded.
 *
 * @throws JobNotFoundError, TimeoutError (no peer served the spec in time), DownloadError, AbortError, the chain errors
 */
/** Why nothing can be fetched when this client is connected to no peer; undefined when it is connected to some. */
export function connectedToNobody (ctx: Pick<ClientContext, 'node'>): string | undefined {
  if (ctx.node.libp2p.getPeers().length > 0) return undefined
  return 'this client is connected to no peer (no bootstrap peer given, or none answered: jobmesh devnet prints JOBMESH_BOOTSTRAP)'
}

export async function loadSpec (ctx: ClientContext, jobId: string, signal?: AbortSignal, fetchTimeoutMs?: number): Promise<KnownSpec> {
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
  const timeoutMs = fetchTimeoutMs ?? ctx.settings.fetchTimeoutMs
  let bytes: Uint8Array
  try {
    // the timeout is the store's own (not folded into the signal), so that it fails as a timeout, not as an abort
    bytes = await fetchContent(ctx.store, cid.toString(), { signal: anySignal([signal, ctx.stopped]), timeoutMs })
  } catch (err) {
    if ((err as Error).name !== TimeoutError.name) throw err
    // connected to nobody, the job is not to blame: this client has nobody to ask
    const why = connectedToNobody(ctx) ??
      'no peer this client reaches holds it (the job may never have been announced: its creator\'s process stopped before a peer took its inputs)'
    throw new TimeoutError(`the spec ${created.specCid} of job ${jobId} could not be fetched within ${timeoutMs} ms: ${why}`, { cause: err })
  }
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
export async function loadEscrowJob (ctx: ChainContext, jobId: string, signal?: AbortSignal): Promise<EscrowJob> {
  const job = await ctx.chain.client.job(jobId, { signal })
  if (job.status === 'None') throw new JobNotFoundError(`the escrow has no job ${jobId}`)
  return job
}

/** The chain's clock in seconds (what the escrow compares deadlines with), for a message: the local one if unreadable. */
export async function chainNow (ctx: ChainContext, signal?: AbortSignal): Promise<number> {
  return await ctx.chain.client.chainTime({ signal }).catch(() => Math.floor(Date.now() / 1000))
}
