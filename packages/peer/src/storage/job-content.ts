import { logger } from '@libp2p/logger'
import { DEFAULT_MAX_CODE_BYTES } from '../executor/index.js'
import { MAX_MICROJOB_INPUT_BYTES, MAX_SPEC_BYTES, encodeJobSpec, jobModelUri } from '../protocol/index.js'
import { rawBlockCid } from './content-store.js'
import type { ContentStore } from './content-store.js'
import type { JobSpec } from '../protocol/index.js'

const log = logger('jobmesh:storage')

/** Room for a DAG's own blocks (UnixFS nodes and links) beside its content: 1/8 of it and 1 MiB. */
function dagBytes (content: number): number {
  return content + Math.ceil(content / 8) + 1024 * 1024
}

/** The most bytes pinning a model may make a peer hold: one MicroJob's input, with room for the DAG. */
export const MAX_MODEL_PIN_BYTES = dagBytes(MAX_MICROJOB_INPUT_BYTES)

/**
 * The most bytes each input of a job may make a peer hold when it pins them: what the peers could ever read of it
 * (the code: what the executor fetches; the data: `blockCount x blockSize`, every MicroJob's blocks; a model: one
 * MicroJob's input), with room for the DAG. A job whose content is larger (a data URI naming a far bigger DAG than
 * the job declares) is not held at all.
 */
export function jobContentBounds (spec: Pick<JobSpec, 'blockCount' | 'blockSize'>): { code: number, data: number, model: number } {
  return {
    code: dagBytes(DEFAULT_MAX_CODE_BYTES),
    data: dagBytes(spec.blockCount * spec.blockSize),
    model: MAX_MODEL_PIN_BYTES
  }
}

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
 * Each is bounded by {@link jobContentBounds}. Returns the URIs pinned. Idempotent.
 *
 * @throws ContentTimeoutError, ContentTooLargeError, UnsupportedUriError, AbortError
 */
export async function pinJobContent (store: Pick<ContentStore, 'pin' | 'addRaw'>, job: JobContent,
  options: PinJobContentOptions = {}): Promise<string[]> {
  const pinned: string[] = []
  const specBytes = encodeJobSpec(job.spec)
  // the announcement carries the canonical spec: when it hashes to the spec CID, no fetch is needed
  if (rawBlockCid(specBytes).toString() === job.specCid) {
    await store.addRaw(specBytes, { signal: options.signal })
    pinned.push(`ipfs://${job.specCid}`)
  } else if (await store.pin(`ipfs://${job.specCid}`, { ...options, maxBytes: dagBytes(MAX_SPEC_BYTES) })) {
    pinned.push(`ipfs://${job.specCid}`)
  }
  const bounds = jobContentBounds(job.spec)
  const uris: Array<[string, number]> = [[job.spec.codeUri, bounds.code], [job.spec.dataUri, bounds.data]]
  const model = jobModelUri(job.spec)
  if (model != null) uris.push([model, bounds.model])
  for (const [uri, maxBytes] of uris) {
    if (await store.pin(uri, { ...options, maxBytes })) pinned.push(uri)
  }
  log('job %s: pinned %s', job.jobId, pinned.join(', '))
  return pinned
}
