import { logger } from '@libp2p/logger'
import { INDEX_JOBS_MAP, JobAnnouncement, recordVerifier } from '../coord/index.js'
import { INDEX_DOC } from '../crdt/index.js'
import { announcedRound, ANNOUNCEMENT_DOMAIN, roundKey } from '../jobs/index.js'
import { decodeJobSpec } from '../protocol/index.js'
import type { RecordVerifier } from '../coord/index.js'
import type { JobRequirementFacts } from './story.js'
import type * as Y from 'yjs'

const log = logger('jobmesh:observe')

/** A job as its signed announcement in `jobmesh/index` describes it. */
export interface AnnouncedJob {
  jobId: string
  specCid: string
  round: number
  /** `roundKey(jobId, round)`: the scope of its records and topics. */
  key: string
  requirements: JobRequirementFacts
  macroJobs: number
  microJobsPerMacro: number
  total: number
  /** The spec's deadline (Unix ms). */
  deadline: number
  /** PeerId that signed the announcement. */
  announcer: string
}

/** Decodes one announcement record of the index's `jobs` map; undefined when forged, malformed or without a spec. */
export function decodeAnnouncedJob (record: Uint8Array, verifier: RecordVerifier = recordVerifier()): AnnouncedJob | undefined {
  const verified = verifier.verify(record, ANNOUNCEMENT_DOMAIN)
  if (verified == null) return undefined
  try {
    const a = JobAnnouncement.decode(verified.payload)
    if (a.spec == null) return undefined
    const spec = decodeJobSpec(a.spec)
    const jobId = `0x${Buffer.from(a.jobId).toString('hex')}`
    const round = announcedRound(a)
    return {
      jobId,
      specCid: a.specCid,
      round,
      key: roundKey(jobId, round),
      requirements: { minVramGb: a.minVramGb, gpuModel: a.gpuModel, modelId: a.modelId },
      macroJobs: spec.slicing.macroJobs,
      microJobsPerMacro: spec.slicing.microJobsPerMacro,
      total: spec.slicing.macroJobs * spec.slicing.microJobsPerMacro,
      deadline: spec.deadline,
      announcer: verified.signer
    }
  } catch (err) {
    log('bad announcement: %e', err)
    return undefined
  }
}

/** The `jobs` map of the index doc. */
export function announcementsMap (index: Y.Doc): Y.Map<Uint8Array> {
  return index.getMap<Uint8Array>(INDEX_JOBS_MAP)
}

/** Every announced job (latest round each) of the index doc. */
export async function readAnnouncedJobs (docs: { open(name: string, options?: { signal?: AbortSignal }): Promise<Y.Doc> },
  options: { signal?: AbortSignal } = {}): Promise<Map<string, AnnouncedJob>> {
  const index = await docs.open(INDEX_DOC, options)
  const out = new Map<string, AnnouncedJob>()
  const verifier = recordVerifier()
  for (const [, value] of announcementsMap(index)) {
    const job = decodeAnnouncedJob(value, verifier)
    if (job == null) continue
    const known = out.get(job.jobId)
    if (known == null || job.round > known.round) out.set(job.jobId, job)
  }
  return out
}
