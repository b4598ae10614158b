/**
 * @packageDocumentation
 *
 * The jobmesh protocol core: pure, deterministic logic that every peer, the DApp SDK and the contracts agree on
 * (docs/protocol.md is the normative description).
 *
 * - JobSpec: `parseJobSpec` (validation of external input), `encodeJobSpec` / `decodeJobSpec` (canonical bytes).
 * - Ids and slicing: `computeJobId`, `computeMacroId`, `computeMicroId`, `sliceJob`.
 * - Validation sample: `validationIndex`, `samplePositions`, `verifierHash`, `sampleExecutionDigest`.
 * - Work tags: `workTag`, `isWorkTag` (a result's proof that its signer ran the MicroJob).
 * - Merkle trees: `jobTree` (OpenZeppelin compatible), `resultTree` (positional), `verifyProof`, `verifyPositionalProof`.
 * - Pricing: `taskValue` (wei per second, from the network's `PricingParams`), `taskValueToNumber`.
 * - Selection: `seedWeight`, `contractWeight`, `createPrng`, `weightedChoice`, `drawDistinct`.
 * - QoS: `roundScore`, `taskScore`, `windowedScore`, `shouldKickOut`, `qosRatio`, `vramScore`, `timeoutScore`.
 * - Work choice: `createTaskQueue`, `chooseJob`, `isEligible`.
 * - Signed records: `signRecord`, `verifySignedRecord`, `encodeSignedRecord`, `decodeSignedRecord`.
 *
 * @example
 * ```TypeScript
 * import { parseJobSpec, computeJobId, sliceJob, jobTree } from '@jobmesh/peer/protocol'
 *
 * const spec = parseJobSpec(json)
 * const jobId = computeJobId(spec.creator, specCid, 0n)
 * const { microJobs } = sliceJob(spec, jobId)
 * const jobRoot = jobTree(microJobs).root
 * ```
 */

export * from './constants.js'
export { nodesNeeded } from './verifiers.js'
export * from './errors.js'
export { parseJobSpec, microJobCount, microJobOutputBound, jobOutputBound, jobModelUri } from './job-spec.js'
export { slicingMismatch } from './slicing-fit.js'
export type { JobSpec, SlicingSpec, Requirements, Estimate } from './job-spec.js'
export { encodeJobSpec, decodeJobSpec } from './job-spec-codec.js'
export { computeJobId, computeMacroId, computeMicroId } from './ids.js'
export { sliceJob } from './slicing.js'
export type { Slicing, MacroJobDescriptor, MicroJobDescriptor } from './slicing.js'
export { validationIndex, samplePositions, verifierHash, sampleExecutionDigest } from './validation.js'
export type { VerificationRound } from './validation.js'
export { WORK_TAG_BYTES, workTag, isWorkTag } from './work-tag.js'
export { createMerkleTree, verifyProof } from './merkle.js'
export type { MerkleTree } from './merkle.js'
export { JOB_LEAF_TYPES, RESULT_LEAF_TYPES, jobLeafHash, resultLeafHash } from './merkle-leaves.js'
export type { ResultLeaf } from './merkle-leaves.js'
export { jobTree, resultTree } from './merkle-trees.js'
export { createPositionalTree, verifyPositionalProof, positionalDepth } from './positional-tree.js'
export type { PositionalTree } from './positional-tree.js'
export { taskValue, taskValueToNumber } from './pricing.js'
export type { PricingParams } from './pricing.js'
export { seedWeight, contractWeight } from './weight.js'
export type { WeightInput, NetworkMaxima, WeightCaps } from './weight.js'
export { createPrng, weightedChoice, drawDistinct } from './prng.js'
export type { Prng } from './prng.js'
export { roundScore, taskScore, windowedScore, shouldKickOut, qosRatio, vramScore, timeoutScore } from './qos.js'
export type { QosWindowInit, KickOutInit } from './qos.js'
export { isEligible } from './eligibility.js'
export type { NodeHardware, HardwareRequirement } from './eligibility.js'
export { IndexedHeap } from './heap.js'
export { createTaskQueue } from './task-queue.js'
export type { QueuedTask, TaskQueue, TaskQueueInit } from './task-queue.js'
export { chooseJob } from './choose-job.js'
export type { JobCandidate, PeerState } from './choose-job.js'
export { signRecord, verifySignedRecord, recordSigningMessage } from './signed-record.js'
export type { SignedRecord } from './signed-record.js'
export { createTrafficCounters, countSent, countReceived } from './counters.js'
export type { TrafficCounters, TrafficKindCounters } from './counters.js'
export { encodeSignedRecord, decodeSignedRecord } from './record-codec.js'
export { toHex, fromHex } from './bytes.js'
export { multihashOfPeerId, peerIdOfMultihash } from './peer-id-cache.js'
