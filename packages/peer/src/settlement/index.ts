/**
 * @packageDocumentation
 *
 * Settlement, the peer side of DESIGN 8 (docs/settlement.md): finalize a completed job (result tree with a payee per
 * MicroJob, manifest on IPFS, `commitResults` + `submitResults`, a signed `final` record in the job doc), prove the
 * sample, serve as a drawn verifier (re-run the sample, judge the proven leaves, commit, reveal), settle, and claim
 * result leaves and credits.
 *
 * @example
 * ```ts
 * await publishProfile({ docs, privateKey: node.privateKey }, { address, gpuModel: 'RTX 4090', vramGb: 24 })
 * const settlement = createSettlement({ docs, chain, store, privateKey: node.privateKey, executor })
 * await settlement.start()
 * // processor: onJobComplete: async (jobId) => { await settlement.onJobComplete(jobId) }
 * ```
 */
export { createSettlement } from './service.js'
export { mapBounded } from './bounded.js'
export { verifierSupply } from './verifier-supply.js'
export { bondCapacity } from './bond-capacity.js'
export { leaveDraw } from './leave-draw.js'
export { jobJoins } from './job-joins.js'
export type { JobJoins, JobJoinsComponents, JobJoinsInit } from './job-joins.js'
export type { BondCapacity, BondCapacityComponents, BondCapacityInit } from './bond-capacity.js'
export { eligibleNodes, knownNodeWallets, narrowsDraw } from './eligible-nodes.js'
export { bondableNodes } from './bondable-nodes.js'
export type { BondableNodes, BondableNodesComponents } from './bondable-nodes.js'
export { peerOwners } from './peer-owners.js'
export { settleOpen } from './phases.js'
export type { PeerOwners } from './peer-owners.js'
export type { EligibleNodesComponents, HardwareRequirements } from './eligible-nodes.js'
export { fundedJobs } from './funded-jobs.js'
export { chainClock } from './chain-clock.js'
export { every } from './every.js'
export type { ChainClock, ChainClockComponents, ChainClockInit } from './chain-clock.js'
export type { FundedJobs, FundedJobsComponents, FundedJobsInit } from './funded-jobs.js'
export type { SupplyJob, VerifierSupply, VerifierSupplyComponents, VerifierSupplyInit } from './verifier-supply.js'
export { datastoreJournal } from './journal.js'
export type { DutyJournal } from './journal.js'
export { withRetry } from './retry.js'
export type { RetryOptions } from './retry.js'
export type { Settlement, SettlementDuty, SettlementInit, SettlementEvents, SettlementStartOptions } from './service-api.js'
export type { OwnPause } from './stay-in-draw.js'
export { finalizeJob, buildManifest, resultCommitment } from './finalize.js'
export type { FinalizeOptions, FinalizeResult } from './finalize.js'
export { ensureOutputs } from './availability.js'
export type { EnsureOutputsOptions, EnsureOutputsResult } from './availability.js'
export { verifyJob, commitment } from './verify.js'
export type { VerifyResult } from './verify.js'
export { drawIfLate, drawVerifiers, proveAndSettle } from './settle.js'
export { ensureSeedCommitted, revealSeed, seedAt, seedHash } from './seeds.js'
export type { SeedChain } from './seeds.js'
export type { SettleResult } from './settle.js'
export { claimPayouts } from './claim.js'
export type { ClaimResult } from './claim.js'
export { judgeSample, provenLeaves, roundRecords } from './sample.js'
export { pullFromSubmitter, walletPeerIds } from './evidence.js'
export { applyCommitTimeout } from './commit-timeout.js'
export type { SampleJudgement, RoundRecords } from './sample.js'
export { encodeManifest, decodeManifest, manifestTree, resultLeaves } from './manifest.js'
export type { Manifest, ManifestEntry } from './manifest.js'
export { loadManifest, loadSpecFromChain } from './lookup.js'
export type { SettlementComponents, SettlementDocs, SettlementOptions, SpecLoader } from './types.js'
export {
  JobIncompleteError, NoPayeesError, SpecUnavailableError, InvalidManifestError, ValidationIndexMismatchError, UnknownSeedError,
  WrongJobStatusError, OutputUnavailableError, OutputMismatchError, JoinNotMinedError
} from './errors.js'
export {
  DEFAULT_SETTLEMENT_POLL_MS, DEFAULT_PHASE_TIMEOUT_MS, DEFAULT_MANIFEST_FETCH_TIMEOUT_MS, DEFAULT_MAX_MANIFEST_BYTES,
  MANIFEST_VERSION, DEFAULT_OUTPUT_FETCH_TIMEOUT_MS, DEFAULT_OUTPUT_CONCURRENCY,
  DEFAULT_RECORDS_WAIT_MS, DEFAULT_EXPIRY_CHECK_MS, SLASH_LOOKBACK_BLOCKS
} from './constants.js'
