import { connect } from '../deploy.js'
import { createProvider } from '../provider.js'
import {
  DEFAULT_GAS_MARGIN_BPS, DEFAULT_LOG_BLOCK_RANGE, DEFAULT_POLL_MS, DEFAULT_RPC_TIMEOUT_MS, DEFAULT_TX_TIMEOUT_MS
} from '../constants.js'
import { NoIncentivePoolError, NoProviderError, NoSignerError } from '../errors.js'
import { TxSender } from './tx-sender.js'
import { withTimeout } from './wait.js'
import { wrapChainError } from './wrap-error.js'
import type { CallOptions, ChainClientComponents, ChainClientInit } from './client-types.js'
import type { TxOptions, TxResult } from './tx-sender.js'
import type { JobmeshContracts } from '../deploy.js'
import type { Provider } from 'ethers'

/** A contract call: encoded, sent by the client's signer, mined. */
export type ContractTx = (what: string, method: string, args: unknown[], options?: TxOptions, value?: bigint) => Promise<TxResult>

/** What the actions of a chain client share: the provider, the contracts, reads with a timeout, the signer's sends. */
export interface ChainContext {
  provider: Provider
  contracts: JobmeshContracts
  deployment: ChainClientComponents['deployment']
  pollMs: number
  logBlockRange: number
  /** An RPC read with the client's timeout and the caller's signal; failures become typed errors. */
  read<T>(what: string, fn: () => Promise<T>, options?: CallOptions): Promise<T>
  escrowTx: ContractTx
  registryTx: ContractTx
  /** A call to the deployment's `IncentivePool`. @throws NoIncentivePoolError when the deployment has none */
  incentiveTx: ContractTx
  /** The signer's address. @throws NoSignerError */
  address(): Promise<string>
  /** An EIP-191 signature of `message` by the signer (deterministic: RFC 6979). @throws NoSignerError */
  signMessage(message: string): Promise<string>
  blockNumber(options?: CallOptions): Promise<number>
}

/** The provider, signer and contracts of a client, and the read and send every action goes through. */
export function createChainContext (components: ChainClientComponents, init: ChainClientInit): ChainContext {
  const rpcTimeoutMs = init.rpcTimeoutMs ?? DEFAULT_RPC_TIMEOUT_MS
  const pollMs = init.pollMs ?? DEFAULT_POLL_MS
  const logBlockRange = init.logBlockRange ?? DEFAULT_LOG_BLOCK_RANGE
  const provider = components.provider ??
    (components.rpcUrl != null
      ? createProvider(components.rpcUrl, components.deployment.chainId == null ? {} : { chainId: components.deployment.chainId })
      : components.signer?.provider ?? undefined)
  if (provider == null) throw new NoProviderError('createChainClient needs rpcUrl, provider or a signer with a provider')
  const signer = components.signer == null
    ? undefined
    : components.signer.provider == null ? components.signer.connect(provider) : components.signer
  const contracts = connect(components.deployment, signer ?? provider)
  const { jobEscrow, nodeRegistry } = contracts
  const escrowAddress = components.deployment.jobEscrow
  const registryAddress = components.deployment.nodeRegistry
  const sender = signer == null
    ? undefined
    : new TxSender(provider, signer, {
      rpcTimeoutMs,
      txTimeoutMs: init.txTimeoutMs ?? DEFAULT_TX_TIMEOUT_MS,
      pollMs,
      gasMarginBps: init.gasMarginBps ?? DEFAULT_GAS_MARGIN_BPS,
      confirmations: init.confirmations ?? 1
    })

  const read = async <T>(what: string, fn: () => Promise<T>, options: CallOptions = {}): Promise<T> => {
    try {
      return await withTimeout(fn(), rpcTimeoutMs, what, options.signal)
    } catch (err) {
      throw wrapChainError(err, what)
    }
  }
  const requireSender = (what: string): TxSender => {
    if (sender == null) throw new NoSignerError(`${what} needs a signer`)
    return sender
  }
  const escrowTx = async (what: string, method: string, args: unknown[], options: TxOptions = {}, value?: bigint): Promise<TxResult> => {
    const s = requireSender(what)
    const data = jobEscrow.interface.encodeFunctionData(method, args)
    return s.send(what, { to: escrowAddress, data, ...(value == null ? {} : { value }) }, options)
  }
  const registryTx = async (what: string, method: string, args: unknown[], options: TxOptions = {}, value?: bigint): Promise<TxResult> => {
    const s = requireSender(what)
    const data = nodeRegistry.interface.encodeFunctionData(method, args)
    return s.send(what, { to: registryAddress, data, ...(value == null ? {} : { value }) }, options)
  }
  const incentiveTx = async (what: string, method: string, args: unknown[], options: TxOptions = {}, value?: bigint): Promise<TxResult> => {
    const pool = contracts.incentivePool
    const poolAddress = components.deployment.incentivePool
    if (pool == null || poolAddress == null) throw new NoIncentivePoolError(`${what}: this deployment has no incentive pool`)
    const s = requireSender(what)
    const data = pool.interface.encodeFunctionData(method, args)
    return s.send(what, { to: poolAddress, data, ...(value == null ? {} : { value }) }, options)
  }
  const address = async (): Promise<string> => requireSender('address').from()
  const signMessage = async (message: string): Promise<string> => {
    if (signer == null) throw new NoSignerError('signMessage needs a signer')
    return signer.signMessage(message)
  }
  const blockNumber = async (options?: CallOptions): Promise<number> => read('eth_blockNumber', () => provider.getBlockNumber(), options)

  return {
    provider, contracts, deployment: components.deployment, pollMs, logBlockRange, read, escrowTx, registryTx, incentiveTx, address, signMessage, blockNumber
  }
}
