import { logger } from '@libp2p/logger'
import { DEFAULT_MAX_MESSAGE_BYTES, encodeMessage, INDEX_JOBS_MAP, jobsTopic, messageKind, recordSigner } from '../coord/index.js'
import { INDEX_DOC } from '../crdt/index.js'
import { countSent } from '../protocol/index.js'
import { signAnnouncement } from './announcements.js'
import type { ProcessorComponents } from './types.js'
import type { JobSpec, PricingParams } from '../protocol/index.js'

const log = logger('jobmesh:processor')

/** What announcing a job needs: the node's key, pubsub and the doc store (not a processor: a DApp client has none). */
export type AnnounceComponents = Pick<ProcessorComponents, 'peerId' | 'privateKey' | 'counters'> & {
  pubsub: Pick<ProcessorComponents['pubsub'], 'publish'>
  docs: Pick<ProcessorComponents['docs'], 'open'>
}

/**
 * Announces a job to the network: a signed `JobAnnouncement` (round 0, its task value from `pricing`) in
 * `jobmesh/index` (map `jobs`, key = jobId) and on `/jobmesh/1/jobs`. Returns the record. The processor announces
 * through it, and so does the DApp SDK.
 *
 * @throws InvalidAnnouncementError when the spec cannot be encoded
 */
export async function announceJob (components: AnnounceComponents, spec: JobSpec, jobId: string, specCid: string,
  pricing: PricingParams): Promise<Uint8Array> {
  const signer = recordSigner(components.privateKey, components.peerId.toString(), components.counters)
  const record = signAnnouncement(signer, spec, jobId, specCid, pricing)
  const index = await components.docs.open(INDEX_DOC)
  index.getMap<Uint8Array>(INDEX_JOBS_MAP).set(jobId.toLowerCase(), record)
  const message = { announcement: record as Uint8Array<ArrayBuffer> }
  const bytes = encodeMessage(message, DEFAULT_MAX_MESSAGE_BYTES)
  countSent(components.counters, messageKind(message), bytes.byteLength)
  components.pubsub.publish(jobsTopic(), bytes).catch((err: Error) => { log('publish the announcement of %s: %s', jobId, err.message) })
  return record
}
