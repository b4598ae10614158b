import { logger } from '@libp2p/logger'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import {
  DEFAULT_MAX_MESSAGE_BYTES, encodeMessage, INDEX_JOBS_MAP, JobAnnouncement, jobsTopic, messageKind, recordSigner, recordVerifier
} from '../coord/index.js'
import { INDEX_DOC } from '../crdt/index.js'
import { countSent } from '../protocol/index.js'
import { signAnnouncement } from './announcements.js'
import { ANNOUNCEMENT_DOMAIN } from './constants.js'
import { announcedRound } from './rounds.js'
import type { RoomPubSub } from '../coord/index.js'
import type { JobSpec, PricingParams, TrafficCounters } from '../protocol/index.js'
import type { JobsDocs } from './types.js'
import type { AbortOptions, PeerId, PrivateKey } from '@libp2p/interface'

const log = logger('jobmesh:jobs')

/** What announcing a job needs: the node's key, pubsub and the doc store (not a processor: a DApp client has none). */
export interface AnnounceComponents {
  peerId: PeerId
  privateKey: PrivateKey
  pubsub: Pick<RoomPubSub, 'publish'>
  docs: JobsDocs
  /** Counts the message and the record signature (benches, profiles). */
  counters?: TrafficCounters
}

/**
 * Announces a job to the network: a signed `JobAnnouncement` (round 0, its task value from `pricing`) in
 * `jobmesh/index` (map `jobs`, key = jobId) and on `/jobmesh/1/jobs`. Returns the record. The processor announces
 * through it, and so does the DApp SDK; settlement re-announces a rejected job's next round with {@link reannounceRound}.
 * Every announcement record is written in this file.
 *
 * @throws InvalidAnnouncementError when the spec cannot be encoded; the signal's reason when it ends the index's open
 */
export async function announceJob (components: AnnounceComponents, spec: JobSpec, jobId: string, specCid: string,
  pricing: PricingParams, options: AbortOptions = {}): Promise<Uint8Array> {
  const signer = recordSigner(components.privateKey, components.peerId.toString(), components.counters)
  const record = signAnnouncement(signer, spec, jobId, specCid, pricing)
  const index = await components.docs.open(INDEX_DOC, { signal: options.signal })
  index.getMap<Uint8Array>(INDEX_JOBS_MAP).set(jobId.toLowerCase(), record)
  const message = { announcement: record as Uint8Array<ArrayBuffer> }
  const bytes = encodeMessage(message, DEFAULT_MAX_MESSAGE_BYTES)
  countSent(components.counters, messageKind(message), bytes.byteLength)
  components.pubsub.publish(jobsTopic(), bytes).catch((err: Error) => { log('publish the announcement of %s: %s', jobId, err.message) })
  return record
}

/**
 * Re-announces a job for `round` in `jobmesh/index`: the current announcement with `round` set, signed by this
 * peer. Processors that see it leave the earlier round and work on this one. Idempotent: does nothing (false) when
 * the index already announces this round or a later one, or holds no valid announcement of the job.
 */
export async function reannounceRound (components: { docs: JobsDocs, privateKey: PrivateKey }, jobId: string, round: number,
  options: { signal?: AbortSignal } = {}): Promise<boolean> {
  const id = jobId.toLowerCase()
  const doc = await components.docs.open(INDEX_DOC, options)
  const jobs = doc.getMap<Uint8Array>(INDEX_JOBS_MAP)
  const current = jobs.get(id)
  const verified = current instanceof Uint8Array ? recordVerifier().verify(current, ANNOUNCEMENT_DOMAIN) : undefined
  if (verified == null) return false
  let announcement: JobAnnouncement
  try {
    announcement = JobAnnouncement.decode(verified.payload)
  } catch {
    return false
  }
  if (announcedRound(announcement) >= round) return false
  const self = peerIdFromPrivateKey(components.privateKey).toString()
  const payload = JobAnnouncement.encode({ ...announcement, round })
  jobs.set(id, recordSigner(components.privateKey, self).sign(ANNOUNCEMENT_DOMAIN, payload))
  log('re-announced %s for round %d', id, round)
  return true
}

/** The round announced for a job in `jobmesh/index` (undefined: not announced). */
export async function indexedRounds (components: { docs: JobsDocs }, options: { signal?: AbortSignal } = {}): Promise<Map<string, number>> {
  const doc = await components.docs.open(INDEX_DOC, options)
  const out = new Map<string, number>()
  const verifier = recordVerifier()
  for (const [key, value] of doc.getMap<Uint8Array>(INDEX_JOBS_MAP).entries()) {
    const v = value instanceof Uint8Array ? verifier.verify(value, ANNOUNCEMENT_DOMAIN) : undefined
    if (v == null) continue
    try {
      out.set(key, announcedRound(JobAnnouncement.decode(v.payload)))
    } catch {
      // malformed: absent
    }
  }
  return out
}
