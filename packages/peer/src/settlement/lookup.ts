import { DEFAULT_MANIFEST_FETCH_TIMEOUT_MS, DEFAULT_MAX_MANIFEST_BYTES } from './constants.js'
import { InvalidManifestError, SpecUnavailableError } from './errors.js'
import { decodeManifest, manifestTree } from './manifest.js'
import { readFinalRecords } from '../jobs/index.js'
import { decodeJobSpec } from '../protocol/index.js'
import type { Manifest } from './manifest.js'
import type { SettlementComponents } from './types.js'
import type { ChainClient } from '@jobmesh/contracts'
import type { JobSpec } from '../protocol/index.js'

/** The spec of a job: `ipfs://<specCid>` of its `JobCreated` event (content-addressed, so authentic). */
export async function loadSpecFromChain (components: { chain: ChainClient, store: SettlementComponents['store'] }, jobId: string,
  options: { signal?: AbortSignal } = {}): Promise<JobSpec> {
  const specCid = (await components.chain.jobCreated(jobId, options))?.specCid
  if (specCid === undefined) throw new SpecUnavailableError(`no JobCreated event for ${jobId}`)
  try {
    const bytes = await components.store.fetch(`ipfs://${specCid}`, { signal: options.signal, timeoutMs: DEFAULT_MANIFEST_FETCH_TIMEOUT_MS })
    return decodeJobSpec(bytes)
  } catch (err) {
    throw new SpecUnavailableError(`cannot load the spec ${specCid} of ${jobId}: ${(err as Error).message}`, { cause: err })
  }
}

/**
 * The manifest of a job's current submission (the one whose `resultRoot` is on chain): from a `final` record in
 * the round's doc (`round` = the job's rejections on chain, default 0), else from the job's `ResultsSubmitted` events;
 * the first one whose leaves give `resultRoot`.
 *
 * @throws InvalidManifestError
 */
export async function loadManifest (components: Pick<SettlementComponents, 'docs' | 'chain' | 'store'>, jobId: string,
  resultRoot: string, options: { signal?: AbortSignal, round?: number } = {}): Promise<{ manifest: Manifest, manifestCid: string }> {
  const cids = new Set<string>()
  for (const r of await readFinalRecords(components, jobId, options)) {
    if (r.resultRoot.toLowerCase() === resultRoot.toLowerCase()) cids.add(r.manifestCid)
  }
  if (cids.size === 0) {
    for (const cid of await components.chain.submittedManifests(jobId, resultRoot, options)) cids.add(cid)
  }
  for (const cid of cids) {
    try {
      const bytes = await components.store.fetch(`ipfs://${cid}`, { signal: options.signal, maxBytes: DEFAULT_MAX_MANIFEST_BYTES, timeoutMs: DEFAULT_MANIFEST_FETCH_TIMEOUT_MS })
      const manifest = decodeManifest(bytes)
      if (manifest.jobId.toLowerCase() !== jobId.toLowerCase() || manifest.resultRoot.toLowerCase() !== resultRoot.toLowerCase()) continue
      // its leaves must give the root it names: any peer can write a final record, and one naming the right root
      // over other leaves would otherwise stand in front of the real manifest (claims and proofs would fail)
      manifestTree(manifest)
      return { manifest, manifestCid: cid }
    } catch (err) {
      if (options.signal?.aborted === true) throw err
    }
  }
  throw new InvalidManifestError(`no manifest found for ${jobId} with result root ${resultRoot}`)
}
