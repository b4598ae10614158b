/**
 * @packageDocumentation
 *
 * The CRDT store: Yjs docs shared by all peers (DESIGN 5, docs/crdt.md).
 *
 * - Docs: `jobmesh/index` ({@link indexDocName}) and `jobmesh/job/<jobId>` ({@link jobDocName}).
 * - Each open doc is subscribed to gossipsub topic `/jobmesh/1/doc/<name>`; local updates are batched per tick and
 *   published (`0x01 ++ Yjs v1 update`); updates above {@link DEFAULT_MAX_UPDATE_BYTES} go over sync streams.
 * - Catch-up over `/jobmesh/sync/1.0.0`: state vector -> diff, both ways; on `open`, when a peer subscribes to an
 *   open doc's topic, and on demand with `sync()`.
 * - Persistence in the node's datastore under `/jobmesh/crdt/<name>/`, compacted into one snapshot periodically
 *   and on close/stop.
 * - Signed records: {@link signedMap} over a Y.Map: values are protocol signed-record envelopes; invalid records
 *   and records written by a non-owner read as absent.
 *
 * @example
 * ```ts
 * const node = await createNode({ dataDir })
 * const docs = createDocStore(node)
 * const doc = await docs.open(jobDocName(jobId), { signal: AbortSignal.timeout(10_000) })
 * const results = signedMap(doc.getMap('results'), { domain: `jobmesh/result/${jobId}`, owner: ownerIsKeySuffix('/', 8) })
 * await results.set(`3.17/${node.peerId.toString().slice(-8)}`, payload, node.privateKey)
 * results.get(`3.17/${someSlot}`) // verified payload or undefined
 * await docs.stop()
 * await node.stop()
 * ```
 */
export { createDocStore, ORIGIN_GOSSIP, ORIGIN_STORAGE, ORIGIN_SYNC_PULL, ORIGIN_SYNC_PUSH } from './doc-store.js'
export type { DocStore, DocStoreComponents, DocStoreInit, OpenOptions, CatchUpMode, SyncOptions, ConfirmOptions, ConfirmResult } from './doc-store.js'
export type { SyncResult } from './sync.js'
export type { DocStoreMetrics } from './metrics.js'
export { signedMap, anyOwner, ownerIsKey, ownerIsKeySuffix } from './signed-map.js'
export type { SignedMap, SignedMapInit, OwnerRule, VerifiedEntry } from './signed-map.js'
export { indexDocName, jobDocName, roundDocName, macroDocName, jobIdOfDoc, docsOfJob, docTopic, docNameOfTopic } from './names.js'
export { closeJobDocs } from './job-docs.js'
export { FrameType, encodeFrame, decodeFrame } from './sync-frames.js'
export type { Frame } from './sync-frames.js'
export {
  DocNotOpenError, DocNotFoundError, SyncProtocolError, InvalidDocNameError, DocStoreStoppedError, PeerNotAdmittedError
} from './errors.js'
export {
  SYNC_PROTOCOL, DOC_TOPIC_PREFIX, DATASTORE_PREFIX, INDEX_DOC, JOB_DOC_PREFIX, DEFAULT_MAX_UPDATE_BYTES,
  DEFAULT_SYNC_CHUNK_BYTES, DEFAULT_MAX_SYNC_BYTES, DEFAULT_SYNC_TIMEOUT_MS, DEFAULT_SYNC_CONCURRENCY,
  DEFAULT_COMPACT_EVERY, DEFAULT_COMPACT_INTERVAL_MS, GOSSIP_UPDATE_VERSION, DEFAULT_CONFIRM_TIMEOUT_MS,
  DEFAULT_PENDING_PULL_INTERVAL_MS, DEFAULT_GOSSIP_RATE_PER_SECOND, DEFAULT_GOSSIP_BURST, DEFAULT_HELD_BACK_PER_RELAY
} from './constants.js'
export { applyGuarded, heal, ORIGIN_HEAL } from './update-guard.js'
export { appendsOnly, writtenKeys } from './update-keys.js'
export type { UpdateVerdict } from './admit.js'
export type { WrittenKeys } from './update-keys.js'
export type { DocGuard, DocGuards, KeyChange } from './update-guard.js'
export { guardTopic, heldBackBudget, rateLimiter, INVALID_ONLY_TOPIC_SCORE, TopicValidatorResult } from './gossip-guard.js'
export type { GuardedPubSub, RateLimiter, RateLimitInit, RateVerdict } from './gossip-guard.js'
