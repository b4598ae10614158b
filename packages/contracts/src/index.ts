/**
 * `@jobmesh/contracts`: the jobmesh settlement contracts (`NodeRegistry`, `JobEscrow`, `IncentivePool`, `ModelRegistry`) for TypeScript.
 *
 * - **Artifacts**: `as const` ABIs and creation bytecode per contract (`nodeRegistryAbi`, `nodeRegistryBytecode`,
 *   `jobEscrowAbi`, `jobEscrowBytecode`, and the libraries' ABIs for error decoding), compiled from `src/**\/*.sol`
 *   by `scripts/compile.mjs` (solc-js, optimizer 200 runs, the settings of foundry.toml).
 * - **Local chain**: {@link startAnvil} runs an anvil on a free port and stops it without leaving orphans.
 * - **Deployment**: {@link deploy} deploys and wires the contracts; {@link connect} returns typed ethers contracts.
 * - **Provider**: {@link createProvider} builds a `JsonRpcProvider` with the settings anvil needs; {@link rpcCall} makes
 *   one JSON-RPC call over plain `fetch` with a timeout (what {@link probeChainId} and the test pool's anvil methods use).
 * - **Chain client**: {@link createChainClient} binds the typed actions of `src/actions/` (one per file: a
 *   registry or escrow call, a transaction, an event query) to a provider and signer, with timeouts, AbortSignals, a
 *   locally kept nonce and one error family (`ChainRevertError` with the decoded custom error as `errorName`,
 *   `RpcUnreachableError`, `ChainTimeoutError`, `ChainRequestError`, `AbortError`). The peer and the DApp SDK both
 *   reach the chain through it.
 *
 * @example
 * ```ts
 * import { Wallet } from 'ethers'
 * import { connect, createProvider, deploy, startAnvil } from '@jobmesh/contracts'
 *
 * const anvil = await startAnvil()
 * const provider = createProvider(anvil.rpcUrl, { chainId: anvil.chainId })
 * const deployment = await deploy(new Wallet(anvil.accounts[0].privateKey, provider))
 * const node = new Wallet(anvil.accounts[1].privateKey, provider)
 * const { nodeRegistry } = connect(deployment, node)
 * // the PeerId's Ed25519 key (libp2p.privateKey) proves the binding of the PeerId to this address
 * const proof = await signPeerBinding(libp2p.privateKey, deployment, node.address)
 * await (await nodeRegistry.register(proof.peerId, proof.publicKey, proof.signature, gpuModelId, 24, { value: 10n ** 16n })).wait()
 * await anvil.stop()
 * ```
 * @packageDocumentation
 */

export * from './artifacts.generated.js'
export { startAnvil, anvilBinaryPath, parseAnvilBanner } from './anvil.js'
export type { Anvil, AnvilAccount, AnvilExit, AnvilInit } from './anvil.js'
export { deploy, connect, verifyDeployment, resolveDeployParams, serializeDeployment, parseDeployment } from './deploy.js'
export type {
  Deployment,
  DeployInit,
  DeployParams,
  RegistryParams,
  EscrowParams,
  IncentiveParams,
  JobmeshContracts,
  NodeRegistryContract,
  JobEscrowContract,
  IncentivePoolContract,
  ModelRegistryContract
} from './deploy.js'
export { createProvider, isRpcUrl, probeChainId } from './provider.js'
export { badPrivateKeyMessage, privateKeyHex } from './private-key.js'
export type { ProviderInit } from './provider.js'
export { rpcCall } from './rpc-call.js'
export type { RpcCallInit } from './rpc-call.js'
export { decodeContractError } from './decode.js'
export type { DecodedContractError } from './decode.js'
export type { TypedContract, AbiParameter, AbiFunction, AbiValue, AbiArgs, AbiResult } from './types.js'
export { JobStatus, expiryReason, isExpired, isSettledStatus } from './status.js'
export { rerunAllowanceMs } from './rerun-allowance.js'
export { minimumJobFee } from './minimum-fee.js'
export { PEER_BINDING_DOMAIN, ed25519PeerId, peerBindingMessage, signPeerBinding } from './peer-binding.js'
export type { PeerBindingKey, PeerIdProof } from './peer-binding.js'
export { createChainClient } from './client/create-client.js'
export type { ChainClient, ChainClientComponents, ChainClientInit, CallOptions, WaitOptions, WatchOptions } from './client/client-types.js'
export type {
  CommitTimes, CreateJobInput, EscrowJobState, JobLimits, JobStatusName, PricingParams, RegisterInput, RegisterResult, RevealInput, SampleLeaf, SeedCommitState,
  VerifierState
} from './client/contract-types.js'
export type { TxOptions, TxResult } from './client/tx-sender.js'
export type { ChainEvent, EventFilter } from './client/events.js'
export { decodeLog } from './client/events.js'
export { labelId } from './client/labels.js'
export { wrapChainError } from './client/wrap-error.js'
export { anySignal, delay, pollUntil, timeoutSignal, withTimeout } from './client/wait.js'
export { registryOf } from './actions/registry/registry-of.js'
export type { CreatedJob } from './actions/escrow/create-job.js'
export type { SubmitResultsInput } from './actions/escrow/submit-results.js'
export type { BlockRange } from './actions/events/find-events.js'
export type { JobCreatedEvent } from './actions/events/job-created.js'
export type { NodeSlash, SlashReason } from './actions/events/node-slashes.js'
export type { NodeInfo } from './actions/registry/node-info.js'
export { countsActive } from './actions/registry/node-info.js'
export type { NodeGrade } from './actions/registry/node-grade.js'
export type { ExitRequest } from './actions/registry/request-exit.js'
export type { StakeWithdrawal } from './actions/registry/withdraw-stake.js'
export type { ProbeScan } from './actions/registry/probe-next.js'
export type { ProbeState } from './actions/registry/probe-of.js'
export type { QosScores } from './actions/registry/qos-scores.js'
export type { IncentiveAccount } from './actions/incentive/incentive-account.js'
export type { IncentiveClaim } from './actions/incentive/claim-incentive.js'
export type { ModelHolding } from './actions/models/model-holding.js'
export type { ModelPrompt } from './actions/models/model-prompts.js'
export { PROBE_DIFFICULTY, PROBE_WINDOW, isProbeAnswer, solveProbe } from './probe.js'
export * from './errors.js'
export * from './constants.js'
