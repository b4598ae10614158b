import { anySignal } from '@jobmesh/contracts'
import { DEFAULT_MAX_MANIFEST_BYTES, decodeManifest, manifestTree } from '@jobmesh/peer/settlement'
import { logger } from '@libp2p/logger'
import { CID } from 'multiformats/cid'
import { fetchContent } from './content.js'
import { ResultRootMismatchError } from './errors.js'
import type { ClientContext } from './context.js'
import type { MicroJobDescriptor } from '@jobmesh/peer/protocol'
import type { Manifest } from '@jobmesh/peer/settlement'

const log = logger('jobmesh:sdk')

/**
 * The manifest the submitter put on chain with `submitResults` for this resultRoot, checked: its leaves give its
 * root, its resultRoot is the escrow's, and it lists exactly the job's MicroJobs in order. `undefined` when the
 * chain names no manifest or it cannot be fetched (the job doc is used instead).
 *
 * @throws ResultRootMismatchError when a fetched manifest does not match the chain or the slicing
 */
export async function loadManifest (ctx: ClientContext, jobId: string, resultRoot: string, microJobs: MicroJobDescriptor[],
  signal?: AbortSignal): Promise<Manifest | undefined> {
  const [cidText] = await ctx.chain.client.submittedManifests(jobId, resultRoot, { signal })
  if (cidText === undefined) return undefined
  let manifest: Manifest
  try {
    const cid = CID.parse(cidText.replace(/^ipfs:\/\//, '')).toString()
    manifest = decodeManifest(await fetchContent(ctx.store, cid, { signal: anySignal([signal, ctx.stopped], ctx.settings.fetchTimeoutMs), maxBytes: DEFAULT_MAX_MANIFEST_BYTES }))
  } catch (err) {
    if (signal?.aborted === true) throw err
    log('manifest %s of %s unusable, using the job doc: %s', cidText, jobId, (err as Error).message)
    return undefined
  }
  try {
    manifestTree(manifest)
  } catch (err) {
    throw new ResultRootMismatchError(`manifest ${cidText} of ${jobId}: ${(err as Error).message}`, { cause: err })
  }
  if (manifest.resultRoot.toLowerCase() !== resultRoot.toLowerCase()) {
    throw new ResultRootMismatchError(`manifest ${cidText} has resultRoot ${manifest.resultRoot}, the escrow holds ${resultRoot}`)
  }
  const same = manifest.microJobs.length === microJobs.length && manifest.microJobs.every((e, g) =>
    e.microId.toLowerCase() === microJobs[g].microId && e.macroIndex === microJobs[g].macroIndex && e.index === microJobs[g].index)
  if (!same) throw new ResultRootMismatchError(`manifest ${cidText} does not list the MicroJobs of ${jobId} in order`)
  return manifest
}
