/**
 * @packageDocumentation
 *
 * The job records every part reads the same way: announcements (sign, read, write, re-announce a round), rounds
 * (keys, the round an announcement names, the signers a round excludes), peer profiles and payees, and the
 * finalizers' `final` records. One of each: the processor, settlement, the observers and the DApp SDK all use these,
 * side by side, each passing the readers it has (docs, chain) as components.
 *
 * @example
 * ```ts
 * await announceJob({ peerId, privateKey, pubsub, docs }, spec, jobId, specCid, pricing)
 * const excluded = await slashedPeerIds({ chain, docs }, jobId, round)
 * const payee = await payeeOf({ docs, chain }, signerPeerId)
 * ```
 */
export { announceJob, reannounceRound, indexedRounds } from './announce.js'
export type { AnnounceComponents } from './announce.js'
export { signAnnouncement, readAnnouncement, announcedJobId, specValue } from './announcements.js'
export type { KnownJob, AnnouncementVerdict } from './announcements.js'
export { roundKey, announcedRound, excludingVerifier } from './rounds.js'
export type { RoundOracle } from './rounds.js'
export { slashedSubmitters, slashedPeerIds, roundSignerFilter } from './round-exclusion.js'
export type { SlashedSubmitter, RoundExclusionComponents } from './round-exclusion.js'
export { publishProfile, readProfiles, encodeProfile, decodeProfile } from './profiles.js'
export type { PeerProfile } from './profiles.js'
export { payeeOf, payeeResolver } from './payees.js'
export type { PayeeComponents } from './payees.js'
export { finalMap, readFinalRecords } from './final-records.js'
export { outputBudget } from './output-budget.js'
export type { OutputBudget, OutputBudgetInit } from './output-budget.js'
export type { FinalRecord } from './final-records.js'
export { InvalidAnnouncementError, InvalidProfileError } from './errors.js'
export { ANNOUNCEMENT_DOMAIN, FINAL_DOMAIN, FINAL_MAP, PEERS_MAP, PROFILE_DOMAIN } from './constants.js'
export type { JobsDocs } from './types.js'
