/**
 * @packageDocumentation
 *
 * Coordination: timestamp leases on signed CRDT records (DESIGN 6), MacroJob rooms with the MicroJob queue
 * handoff and failover over gossipsub (DESIGN 7), the protobuf messages and their size-capped codec, and the
 * drop metrics. See docs/coordination.md for the record schemas and the rules.
 */
export { leases } from './leases.js'
export type { Lease, Leases, LeasesComponents, LeasesInit, LeaseTable, LeaseTableOptions, ClaimOptions } from './leases.js'
export { resultTable, countingResult, readResults, doneMicroJobs } from './results.js'
export type { Result, ResultTable, ResultsComponents, TurnItem, MacroSize } from './results.js'
export { JobProgress } from './progress.js'
export { macroDocs, followMacroDocs, byMacroJob } from './macro-docs.js'
export type { MacroDoc, MacroDocs, MacroDocsComponents, MacroDocsInit } from './macro-docs.js'
export type { JobProgressEvents, JobProgressComponents } from './progress.js'
export { failedForCertain, JobFailures } from './failures.js'
export type { Failure, FailureSummary, JobFailuresComponents, JobFailuresEvents, JobFailuresInit } from './failures.js'
export { createAdmission } from './admission.js'
export type { Admission, AdmissionComponents, AdmissionInit } from './admission.js'
export { coordGuards } from './doc-guard.js'
export { guardCoordTopic, judgeCoordMessage } from './topic-guard.js'
export type { CoordTopicGuardInit } from './topic-guard.js'
export { MacroRoom } from './room.js'
export type { RoomComponents, RoomInit, RoomEvents, RoomPubSub, RoomPubSubMessage, LockedItem } from './room.js'
export { countDrop, readCoordMessage } from './room-inbox.js'
export { OPEN, LOCKED, DONE, judge, compareStates, packStates, unpackStates, toWire, fromWire, countStates } from './queue.js'
export type { QueueState, QueueLock, Verdict } from './queue.js'
export { encodeMessage, decodeMessage, messageKind } from './codec.js'
export { CoordMessage, LeaseRecord, ResultRecord, TurnResults, FailureRecord, JobAnnouncement, QueueSnapshot, QueueRequest, RoomAnnouncement } from './pb/coord.js'
export { recordSigner, recordVerifier } from './signing.js'
export type { RecordSigner, RecordVerifier, VerifiedRecord } from './signing.js'
export { createMetrics } from './metrics.js'
export type { CoordMetrics } from './metrics.js'
export { TypedEvents } from './events.js'
export { jobsTopic, macroTopic, roomTopic } from './topics.js'
export { microKey, macroKey, macroOfResultKey, resultKey, turnResultKey, resultSlot, macroScope, microScope, resultScope, failureScope, summaryScope, announcementKey } from './keys.js'
export {
  DEFAULT_LEASE_MS, DEFAULT_RENEW_MS, DEFAULT_SKEW_MS, DEFAULT_SETTLE_MS, DEFAULT_HEARTBEAT_MS,
  DEFAULT_OWNER_TIMEOUT_MS, DEFAULT_MAX_MESSAGE_BYTES, DEFAULT_MAX_BATCH, DEFAULT_MAX_BUFFERED_SNAPSHOTS,
  RESULT_SLOT_CHARS, JOBS_TOPIC, MACRO_MAP, MICRO_MAP, RESULTS_MAP, INDEX_JOBS_MAP, FAILURES_MAP, SUMMARY_MAP,
  DEFAULT_MAX_FAILURES, DEFAULT_FAILURE_PEERS, DEFAULT_LOCAL_MAX_FAILURES, MAX_FAILURE_DETAIL_CHARS, MAX_FAILURE_DETAILS, DEFAULT_ADMISSION_NEGATIVE_TTL_MS,
  DEFAULT_COORD_RATE_PER_SECOND, DEFAULT_COORD_BURST, ANNOUNCEMENT_DOMAIN, PEERS_MAP, PROFILE_DOMAIN, FINAL_DOMAIN, FINAL_MAP
} from './constants.js'
export * from './errors.js'
