import { logger } from '@libp2p/logger'
import { encodeJobSpec, jobModelUri } from '../protocol/index.js'
import { rawBlockCid } from './content-store.js'
import type { ContentStore } from './content-store.js'
import type { JobSpec } from '../protocol/index.js'

const log = logger('jobmesh:storage')

/** What a job needs to be worked on and verified: its spec and the content its spec names. */
export interface JobContent {
  jobId: string
  specCid: string
  spec: JobSpec
}

export interface PinJobContentOptions {
  /** Bound of each pin (ms); the store's fetch timeout without it. */
  timeoutMs?: number
  signal?: AbortSignal
}

/**
 * Makes this node a holder of a job's inputs before it works on the job (docs/settlement.md, Availability): the
 * spec block (rebuilt from the announced spec when its CID matches, else fetched), the code and the data (and a
 * model given as an `ipfs://` URI) are fetched whole and pinned. Once one peer that accepted the job holds them,
 * the DApp that uploaded them can go offline. `https://` and `file://` inputs are not pinned (not content-addressed).
 * Returns the URIs pinned. Idempotent.
 *
 * @throws ContentTimeoutError, UnsupportedUriError, AbortError
 */
export async function pinJobContent (store: Pick<ContentStore, 'pin' | 'addRaw'>, job: JobContent,
  options: PinJobContentOptions = {}): Promise<string[]> {
  const pinned: string[] = []
  const specBytes = encodeJobSpec(job.spec)
  // the announcement carries the canonical spec: when it hashes to the spec CID, no fetch is needed
  if (rawBlockCid(specBytes).toString() === job.specCid) {
    await store.addRaw(specBytes, { signal: options.signal })
    pinned.push(`ipfs://${job.specCid}`)
  } else if (await store.pin(`ipfs://${job.specCid}`, options)) {
    pinned.push(`ipfs://${job.specCid}`)
  }
  const uris = [job.spec.codeUri, job.spec.dataUri]
  const model = jobModelUri(job.spec)
  if (model != null) uris.push(model)
  for (const uri of uris) {
    if (await store.pin(uri, options)) pinned.push(uri)
  }
  log('job %s: pinned %s', job.jobId, pinned.join(', '))
  return pinned
}
