/**
 * @packageDocumentation
 *
 * The chain client: typed wrappers over NodeRegistry and JobEscrow (`@jobmesh/contracts`) with timeouts,
 * AbortSignals, a locally kept nonce, reverts decoded to the custom error name (`ChainRevertError.errorName`), and
 * an event watcher that polls `eth_getLogs` over block ranges with a cursor.
 *
 * @example
 * ```ts
 * const chain = createChainClient({ rpcUrl, signer: new Wallet(key), deployment })
 * await chain.ensureRegistered({ peerId, privateKey, gpuModel: 'RTX 4090', vramGb: 24, stake: 10n ** 16n })
 * try {
 *   await chain.settle(jobId)
 * } catch (err) {
 *   if (err.name === 'ChainRevertError' && err.errorName === 'SettleTooEarly') { ... }
 * }
 * ```
 */
export { createChainClient } from './client.js'
export type {
  ChainClient, ChainClientComponents, ChainClientInit, CallOptions, WaitOptions, CreateJobInput, EscrowJobState,
  VerifierState, SampleLeaf, RevealInput, RegisterInput, RegisterResult, WatchOptions, JobStatusName
} from './client.js'
export type { TxOptions, TxResult } from './tx.js'
export type { ChainEvent, EventFilter } from './events.js'
export { decodeLog } from './events.js'
export { labelId } from './labels.js'
export { wrapChainError } from './wrap.js'
export { delay, pollUntil, withTimeout } from './wait.js'
export {
  ChainRevertError, RpcUnreachableError, ChainTimeoutError, ChainRequestError, NoSignerError, NoProviderError, AbortError,
  InsufficientFundsError
} from './errors.js'
export {
  DEFAULT_RPC_TIMEOUT_MS, DEFAULT_TX_TIMEOUT_MS, DEFAULT_POLL_MS, DEFAULT_LOG_BLOCK_RANGE, DEFAULT_GAS_MARGIN_BPS,
  DEFAULT_WAIT_TIMEOUT_MS, JOB_STATUS_NAMES
} from './constants.js'
