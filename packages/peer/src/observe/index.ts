/**
 * @packageDocumentation
 *
 * Seeing the network: a peer's typed event stream (operator lines, the dashboard's recent events), its Prometheus
 * metrics, the live view of jobs (per-MacroJob progress, queue owners), peers, stake and earnings, and job stories
 * (`describe`: who can take a job, and what it is waiting for now).
 */
export { EventLog } from './event-log.js'
export type { PeerEvent, PeerEventKind, EventLogEvents } from './event-log.js'
export { attachPeerEvents, shortId, ethText } from './attach-events.js'
export { isoSeconds, timeLeft } from './time-text.js'
export { sizeText } from './size-text.js'
export type { EventSources } from './attach-events.js'
export { registerPeerMetrics, METRIC_NAMES } from './metrics.js'
export type { MetricsSources } from './metrics.js'
export { readAnnouncedJobs, decodeAnnouncedJob } from './announced-jobs.js'
export type { AnnouncedJob } from './announced-jobs.js'
export { JobView } from './job-view.js'
export type { JobProgressView, MacroView, OwnerMove } from './job-view.js'
export { readAccount, readVerification, readVerificationQueue, verificationQueueCursor, earningsCursor, incentiveJson } from './chain-view.js'
export { rankQueued, compareQueued } from './queue-position.js'
export type { QueuedVerification, QueuePosition } from './queue-position.js'
export type { AccountView, VerificationView, EarningsCursor, VerificationQueueCursor, IncentiveJson } from './chain-view.js'
export { explainJob, matchPeers } from './story.js'
export type { JobFacts, JobStory, PeerFacts, PeerMatch, MismatchReason, JobRequirementFacts, OutOfDraw } from './story.js'
export { describeJob, gatherJobFacts, gatherPeerFacts, outOfDraw } from './describe.js'
export type { DescribeComponents, DescribeOptions } from './describe.js'
export { NetworkObserver } from './network-observer.js'
export type { NetworkObserverComponents, NetworkObserverInit } from './network-observer.js'
export type { NetworkState, PeerCard, JobCard } from './network-state.js'
export * from './constants.js'
