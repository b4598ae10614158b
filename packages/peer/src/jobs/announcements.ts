import { JobAnnouncement } from '../coord/index.js'
import { decodeJobSpec, encodeJobSpec, fromHex, microJobCount, taskValue, toHex } from '../protocol/index.js'
import { ANNOUNCEMENT_DOMAIN } from './constants.js'
import { InvalidAnnouncementError } from './errors.js'
import { announcedRound, roundKey } from './rounds.js'
import type { RecordSigner, RecordVerifier } from '../coord/index.js'
import type { JobSpec, PricingParams } from '../protocol/index.js'

/** A job this peer learned of from a signed announcement. */
export interface KnownJob {
  jobId: string
  specCid: string
  spec: JobSpec
  value: bigint
  minVramGb: number
  gpuModel?: string
  modelId?: string
  signer: string
  /** Processing round (rejections on chain) and its key for topics and signing domains (processor/rounds.ts). */
  round: number
  key: string
}

/** Task value of a job (wei per second, from the network's pricing), as announcements carry it and the job choice ranks it. */
export function specValue (spec: JobSpec, pricing: PricingParams): bigint {
  return taskValue(spec.price, microJobCount(spec), pricing)
}

/** A signed JobAnnouncement record of `spec` (round 0); throws InvalidAnnouncementError when it cannot be encoded. */
export function signAnnouncement (signer: RecordSigner, spec: JobSpec, jobId: string, specCid: string, pricing: PricingParams): Uint8Array {
  let payload: Uint8Array
  try {
    payload = JobAnnouncement.encode({
      jobId: fromHex(jobId),
      specCid,
      minVramGb: spec.requirements.minVramGb,
      gpuModel: spec.requirements.gpuModel,
      modelId: spec.requirements.modelId,
      value: Number(specValue(spec, pricing)),
      status: 0,
      microJobs: spec.slicing.macroJobs * spec.slicing.microJobsPerMacro,
      spec: encodeJobSpec(spec) as Uint8Array<ArrayBuffer>
    })
  } catch (err) {
    throw new InvalidAnnouncementError(`cannot announce ${jobId}: ${(err as Error).message}`)
  }
  return signer.sign(ANNOUNCEMENT_DOMAIN, payload)
}

/** The jobId an announcement's payload (verified) names, or undefined when it is no announcement. */
export function announcedJobId (payload: Uint8Array): string | undefined {
  try {
    return toHex(JobAnnouncement.decode(payload).jobId)
  } catch {
    return undefined
  }
}

/** What an announcement record tells a peer that knows `known(jobId)` already. */
export type AnnouncementVerdict =
  | { kind: 'forged' }
  | { kind: 'malformed', error: Error }
  /** Nothing new: an earlier or the same round, or no spec for a job this peer does not know. */
  | { kind: 'known', job?: KnownJob }
  /** A job this peer did not know, or a later round of one it knew (`previous`). */
  | { kind: 'new', job: KnownJob, previous?: KnownJob }

/**
 * Verifies and decodes a JobAnnouncement record (signature under its domain, protobuf, job spec). `roundOf`: the job's
 * round on chain when known (given the round the record names), which then stands for the record's: anybody can
 * re-sign an announcement with another round.
 */
export function readAnnouncement (record: Uint8Array, verifier: RecordVerifier, known: (jobId: string) => KnownJob | undefined,
  pricing: PricingParams, roundOf?: (jobId: string, announced: number) => number | undefined): AnnouncementVerdict {
  const verified = verifier.verify(record, ANNOUNCEMENT_DOMAIN)
  if (verified == null) return { kind: 'forged' }
  try {
    const a = JobAnnouncement.decode(verified.payload)
    const jobId = toHex(a.jobId)
    const previous = known(jobId)
    const announced = announcedRound(a)
    const round = roundOf?.(jobId, announced) ?? announced
    if (previous != null && round <= previous.round) return { kind: 'known', job: previous }
    if (a.spec == null && previous == null) return { kind: 'known' }
    const spec = a.spec != null ? decodeJobSpec(a.spec) : (previous as KnownJob).spec
    // what a job needs is read from its spec (checked against the escrow's record of the job, settlement/funded-jobs.ts),
    // not from the announcement's copy: anybody may re-sign an announcement of the job with other fields
    const { minVramGb, gpuModel, modelId } = spec.requirements
    const job: KnownJob = {
      jobId, specCid: a.specCid, spec, value: specValue(spec, pricing), minVramGb, gpuModel, modelId, signer: verified.signer,
      round, key: roundKey(jobId, round)
    }
    return { kind: 'new', job, previous }
  } catch (err) {
    return { kind: 'malformed', error: err as Error }
  }
}
