/**
 * @packageDocumentation
 *
 * Replication (docs/settlement.md, Availability): a peer asks others to hold a job's inputs (the DApp's client,
 * right after `submit`) or its outputs and manifest (the finalizer, before `submitResults`) over
 * `/jobmesh/replicate/1.0.0`; they fetch, check and pin, then answer. The asking node then makes each holder prove it
 * over `/jobmesh/hold-proof/1.0.0` (digests of blocks it names with a fresh nonce, the blocks withheld meanwhile).
 */
export { askReplica, replicate } from './client.js'
export type { ReplicateOptions, ReplicationClientComponents } from './client.js'
export { startReplicationServer } from './server.js'
export { proveHolding } from './hold-proof-client.js'
export { holdCheck, holdChecks, provenHolders } from './hold-check.js'
export type { HoldCheck, HoldCheckComponents } from './hold-check.js'
export type { HoldProofClientComponents } from './hold-proof-client.js'
export { startHoldProofServer } from './hold-proof-server.js'
export type { HoldProofServer, HoldProofServerComponents } from './hold-proof-server.js'
export type { ReplicationServer, ReplicationServerComponents, ReplicationServerInit } from './server.js'
export type { ReplicationAnswer, ReplicationRequest } from './wire.js'
export {
  HolderNotConnectedError, HoldProofFailedError, JobNotOpenError, NotEnoughReplicasError, ReplicaRefusedError,
  ReplicationBudgetError, ReplicationProtocolError, UnregisteredSenderError
} from './errors.js'
export {
  DEFAULT_HOLD_PROOF_SAMPLE, DEFAULT_HOLD_PROOF_TIMEOUT_MS, HOLD_PROOF_PROTOCOL, MAX_HOLD_PROOF_BLOCKS,
  DEFAULT_INPUT_REPLICAS, DEFAULT_MAX_REPLICATION_REQUEST_BYTES, DEFAULT_MAX_REPLICATION_SENDER_BYTES, DEFAULT_OUTPUT_REPLICAS,
  DEFAULT_REPLICATION_SENDER_WINDOW_MS, DEFAULT_REPLICATION_TIMEOUT_MS, REPLICATION_PROTOCOL
} from './constants.js'
export { replicateOutputs } from './outputs.js'
export type { ReplicateOutputsOptions, ReplicateOutputsResult } from './outputs.js'
