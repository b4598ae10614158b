import { connect } from '../deploy.js'
import { createProvider } from '../provider.js'
import {
  DEFAULT_GAS_MARGIN_BPS, DEFAULT_LOG_BLOCK_RANGE, DEFAULT_POLL_MS, DEFAULT_RPC_TIMEOUT_MS, DEFAULT_TX_TIMEOUT_MS
} from '../constants.js'
import { NoIncentivePoolError, NoModelRegistryError, NoProviderError, NoSignerError } from '../errors.js'
import { TxSender } from './tx-sender.js'
import { withTimeout } from './wait.js'
import { wrapChainError } from './wrap-error.js'
import type { CallOptions, ChainClientComponents, ChainClientInit } from './client-types.js'
import type { TxOptions, TxResult } from './tx-sender.js'
import type { JobmeshContracts } from '../deploy.js'
import type { Interface, Provider } from 'ethers'

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
  /** A call to the deployment's `ModelRegistry`. @throws NoModelRegistryError when the deployment has none */
  modelsTx: ContractTx
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
      return await withTimeout(fn(), { timeoutMs: rpcTimeoutMs, what, signal: options.signal })
    } catch (err) {
      throw wrapChainError(err, what)
    }
  }
  const requireSender = (what: string): TxSender => {
    if (sender == null) throw new NoSignerError(`${what} needs a signer`)
    return sender
  }
  /** Sends calls to one contract: encoded with its interface, sent by the client's signer. */
  const contractTx = (contract: { interface: Interface }, to: string): ContractTx => async (what, method, args, options = {}, value) => {
    const data = contract.interface.encodeFunctionData(method, args)
    return requireSender(what).send(what, { to, data, ...(value == null ? {} : { value }) }, options)
  }
  const escrowTx = contractTx(jobEscrow, components.deployment.jobEscrow)
  const registryTx = contractTx(nodeRegistry, components.deployment.nodeRegistry)
  const pool = contracts.incentivePool
  const poolAddress = components.deployment.incentivePool
  const incentiveTx: ContractTx = pool == null || poolAddress == null
    ? async (what) => { throw new NoIncentivePoolError(`${what}: this deployment has no incentive pool`) }
    : contractTx(pool, poolAddress)
  const models = contracts.modelRegistry
  const modelsAddress = components.deployment.modelRegistry
  const modelsTx: ContractTx = models == null || modelsAddress == null
    ? async (what) => { throw new NoModelRegistryError(`${what}: this deployment has no model registry`) }
    : contractTx(models, modelsAddress)
  const address = async (): Promise<string> => requireSender('address').from()
  const signMessage = async (message: string): Promise<string> => {
    if (signer == null) throw new NoSignerError('signMessage needs a signer')
    return signer.signMessage(message)
  }
  const blockNumber = async (options?: CallOptions): Promise<number> => read('eth_blockNumber', () => provider.getBlockNumber(), options)

  return {
    provider, contracts, deployment: components.deployment, pollMs, logBlockRange, read, escrowTx, registryTx, incentiveTx, modelsTx, address, signMessage, blockNumber
  }
}
