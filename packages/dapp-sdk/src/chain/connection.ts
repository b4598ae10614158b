import { probeChainId } from '@jobmesh/contracts'
import { FetchRequest, JsonRpcProvider, Network, NonceManager, Wallet } from 'ethers'
import { race } from '../abort.js'
import { ChainError, InvalidConfigError } from '../errors.js'
import { createEscrow } from './escrow.js'
import { wrapChainError } from './wrap.js'
import type { Escrow } from './escrow.js'
import type { Provider, Signer } from 'ethers'

/** Where the contracts live: a `Deployment` of `@jobmesh/contracts` or the part of it the SDK needs. */
export interface DeploymentRef {
  jobEscrow: string
  chainId?: number
  nodeRegistry?: string
  /** Block of the deployment (event scans start here). */
  blockNumber?: number
}

export interface ChainInit {
  rpcUrl?: string
  provider?: Provider
  /** A signer, or a 0x private key. */
  signer: Signer | string
  deployment: DeploymentRef
  rpcTimeoutMs: number
  /** Provider polling interval (ms); ethers' default is 4 000, 1 000 suits Amoy-like 2 s blocks. */
  pollingIntervalMs?: number
  signal?: AbortSignal
}

export interface ChainConnection {
  provider: Provider
  signer: Signer
  address: string
  chainId: number
  escrow: Escrow
  /** Destroys the provider the SDK created (not one passed in). */
  close(): void
}

/**
 * Connects to the chain: probes `rpcUrl` (a dead endpoint fails fast with ChainError instead of ethers retrying
 * forever), builds a static-network provider without a result cache, connects the signer and the escrow.
 *
 * @throws ChainError (unreachable RPC, chain id mismatch), InvalidConfigError
 */
export async function connectChain (init: ChainInit): Promise<ChainConnection> {
  if (typeof init.deployment?.jobEscrow !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(init.deployment.jobEscrow)) {
    throw new InvalidConfigError('deployment.jobEscrow must be a 0x address')
  }
  let provider: Provider
  let owned: JsonRpcProvider | undefined
  let chainId: number
  if (init.provider !== undefined) {
    provider = init.provider
    try {
      const network = await race(provider.getNetwork(), { signal: init.signal, timeoutMs: init.rpcTimeoutMs, what: 'getNetwork' })
      chainId = Number(network.chainId)
    } catch (err) {
      throw wrapChainError(err, 'reading the chain id')
    }
  } else if (init.rpcUrl !== undefined) {
    try {
      chainId = await probeChainId(init.rpcUrl, { timeout: init.rpcTimeoutMs, signal: init.signal })
    } catch (err) {
      if ((err as Error).name === 'AbortError') throw err
      throw new ChainError(`cannot reach ${init.rpcUrl}: ${(err as Error).message}`, { cause: err })
    }
    const request = new FetchRequest(init.rpcUrl)
    request.timeout = init.rpcTimeoutMs
    const network = Network.from(chainId)
    owned = new JsonRpcProvider(request, network, {
      staticNetwork: network,
      cacheTimeout: -1,
      ...(init.pollingIntervalMs === undefined ? {} : { pollingInterval: init.pollingIntervalMs })
    })
    provider = owned
  } else {
    throw new InvalidConfigError('either rpcUrl or provider is required')
  }
  const close = (): void => { owned?.destroy() }
  try {
    if (init.deployment.chainId !== undefined && init.deployment.chainId !== chainId) {
      throw new ChainError(`the deployment is for chain ${init.deployment.chainId}, the RPC endpoint serves chain ${chainId}`)
    }
    let signer: Signer
    if (typeof init.signer === 'string') {
      try {
        signer = new Wallet(init.signer, provider)
      } catch (err) {
        throw new InvalidConfigError('signer is not a valid private key', { cause: err })
      }
    } else {
      signer = init.signer.provider == null ? init.signer.connect(provider) : init.signer
    }
    let address: string
    try {
      address = await race(signer.getAddress(), { signal: init.signal, timeoutMs: init.rpcTimeoutMs, what: 'getAddress' })
    } catch (err) {
      throw wrapChainError(err, 'reading the signer address')
    }
    // one nonce sequence per client: concurrent submits get consecutive nonces instead of racing for the same one
    const nonces = signer instanceof NonceManager ? signer : new NonceManager(signer)
    signer = nonces
    const escrow = createEscrow({
      address: init.deployment.jobEscrow,
      runner: signer,
      provider,
      rpcTimeoutMs: init.rpcTimeoutMs,
      // a send that failed may not have used its nonce: re-read it from the chain
      onSendError: () => { nonces.reset() }
    })
    return { provider, signer, address, chainId, escrow, close }
  } catch (err) {
    close()
    throw err
  }
}
