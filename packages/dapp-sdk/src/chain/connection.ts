import { ChainMismatchError, RpcUnreachableError, createChainClient, isRpcUrl, probeChainId, registryOf, withTimeout, wrapChainError } from '@jobmesh/contracts'
import { FetchRequest, JsonRpcProvider, Network, VoidSigner, Wallet } from 'ethers'
import { DEFAULT_CONFIRMATIONS, DEFAULT_POLL_INTERVAL_MS, DEFAULT_RPC_TIMEOUT_MS, DEFAULT_TX_TIMEOUT_MS } from '../constants.js'
import { InvalidConfigError } from '../errors.js'
import type { ChainClient } from '@jobmesh/contracts'
import type { Provider, Signer } from 'ethers'

/** Where the contracts live: a `Deployment` of `@jobmesh/contracts` or the part of it the SDK needs. */
export interface DeploymentRef {
  jobEscrow: string
  chainId?: number
  /** Read from the escrow (`JobEscrow.registry()`) when not given. */
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
  /** How long a transaction may take to be mined (ms). */
  txTimeoutMs: number
  /** Confirmations each transaction waits for. */
  confirmations: number
  /** Poll interval of receipts and event scans (ms). */
  pollMs: number
  signal?: AbortSignal
}

export interface ChainConnection {
  provider: Provider
  address: string
  chainId: number
  /** The chain client of `@jobmesh/contracts` (the one the peers use), signing with the DApp's wallet. */
  client: ChainClient
  /** The signer is an ethers `VoidSigner`: this client reads (status, results, describe) and cannot pay. */
  readOnly: boolean
  /** Destroys the provider the SDK created (not one passed in). */
  close(): void
}

async function ownProvider (rpcUrl: string, init: ChainInit): Promise<{ provider: JsonRpcProvider, chainId: number }> {
  let chainId: number
  try {
    chainId = await probeChainId(rpcUrl, { timeout: init.rpcTimeoutMs, signal: init.signal })
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err
    throw new RpcUnreachableError(`cannot reach ${rpcUrl}: ${(err as Error).message}`, { cause: err })
  }
  const request = new FetchRequest(rpcUrl)
  request.timeout = init.rpcTimeoutMs
  const network = Network.from(chainId)
  return { provider: new JsonRpcProvider(request, network, { staticNetwork: network, cacheTimeout: -1 }), chainId }
}

async function givenProvider (provider: Provider, init: ChainInit): Promise<number> {
  try {
    const network = await withTimeout(provider.getNetwork(), { signal: init.signal, timeoutMs: init.rpcTimeoutMs, what: 'getNetwork' })
    return Number(network.chainId)
  } catch (err) {
    throw wrapChainError(err, 'reading the chain id')
  }
}

/**
 * Refuses, before anything is uploaded or sent, what a read-only client (a `VoidSigner`) cannot do: `what` pays.
 * @throws InvalidConfigError
 */
export function requireSigning (chain: Pick<ChainConnection, 'readOnly' | 'address'>, what: string): void {
  if (chain.readOnly) {
    throw new InvalidConfigError(`${what} needs a signer that signs: this client's signer is a VoidSigner (${chain.address}), ` +
      'which reads and cannot pay (give a 0x private key or an ethers Signer)')
  }
}

/**
 * The options a JavaScript caller (untyped) may get wrong, checked before any request: a signer that is neither a
 * private key nor a Signer, an `rpcUrl` that is not an http:// or https:// URL (`localhost:8545`).
 */
function checkOptions (init: ChainInit): void {
  const signer = init.signer as unknown
  if (signer === undefined || signer === null) {
    throw new InvalidConfigError('signer is required: a 0x private key or an ethers Signer (it pays for the jobs and is their creator; a client that only reads takes an ethers VoidSigner)')
  }
  if (typeof signer !== 'string' && typeof (signer as Partial<Signer>).getAddress !== 'function') {
    throw new InvalidConfigError(`signer must be a 0x private key or an ethers Signer, got ${typeof signer}`)
  }
  if (init.rpcUrl !== undefined && init.provider === undefined && (typeof init.rpcUrl !== 'string' || !isRpcUrl(init.rpcUrl))) {
    throw new InvalidConfigError(`malformed option rpcUrl: expected an http:// or https:// URL such as http://127.0.0.1:8545, got "${String(init.rpcUrl)}"`)
  }
}

function plainSigner (signer: Signer | string, provider: Provider): Signer {
  if (typeof signer !== 'string') return signer.provider == null ? signer.connect(provider) : signer
  try {
    return new Wallet(signer, provider)
  } catch (err) {
    throw new InvalidConfigError('signer is not a valid private key', { cause: err })
  }
}

/**
 * Connects to the chain: probes `rpcUrl` (a dead endpoint fails fast with RpcUnreachableError instead of ethers
 * retrying forever), builds a static-network provider without a result cache, and a chain client of
 * `@jobmesh/contracts` over the deployment with the DApp's wallet (it keeps the wallet's nonce itself).
 *
 * @throws RpcUnreachableError, ChainMismatchError (the deployment is for another chain), EscrowNotFoundError (no
 * JobEscrow at `deployment.jobEscrow` on this chain), InvalidConfigError, and
 * the other chain errors
 */
export async function connectChain (init: ChainInit): Promise<ChainConnection> {
  checkOptions(init)
  // a path where the object goes (JOBMESH_DEPLOYMENT names a file): say so, not that its jobEscrow is no address
  if (typeof (init.deployment as unknown) === 'string') {
    throw new InvalidConfigError(`deployment must be the deployment object, not a string (${String(init.deployment)}): ` +
      'read its file first, e.g. JSON.parse(await readFile(path, \'utf8\'))')
  }
  if (typeof init.deployment?.jobEscrow !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(init.deployment.jobEscrow)) {
    throw new InvalidConfigError('deployment.jobEscrow must be a 0x address')
  }
  let provider: Provider
  let owned: JsonRpcProvider | undefined
  let chainId: number
  if (init.provider !== undefined) {
    provider = init.provider
    chainId = await givenProvider(provider, init)
  } else if (init.rpcUrl !== undefined) {
    ({ provider: owned, chainId } = await ownProvider(init.rpcUrl, init))
    provider = owned
  } else {
    throw new InvalidConfigError('either rpcUrl or provider is required')
  }
  const close = (): void => { owned?.destroy() }
  try {
    if (init.deployment.chainId !== undefined && init.deployment.chainId !== chainId) {
      throw new ChainMismatchError(`the deployment is for chain ${init.deployment.chainId}, the RPC endpoint serves chain ${chainId}`)
    }
    const signer = plainSigner(init.signer, provider)
    let address: string
    try {
      address = await withTimeout(signer.getAddress(), { signal: init.signal, timeoutMs: init.rpcTimeoutMs, what: 'getAddress' })
    } catch (err) {
      throw wrapChainError(err, 'reading the signer address')
    }
    // asked even when the deployment names the registry: a wrong escrow address fails here, as EscrowNotFoundError
    const nodeRegistry = await registryOf(provider, init.deployment.jobEscrow, { signal: init.signal, timeoutMs: init.rpcTimeoutMs })
    if (init.deployment.nodeRegistry !== undefined && init.deployment.nodeRegistry.toLowerCase() !== nodeRegistry.toLowerCase()) {
      throw new InvalidConfigError(`deployment.nodeRegistry ${init.deployment.nodeRegistry} is not the registry of the JobEscrow at ` +
        `${init.deployment.jobEscrow} (${nodeRegistry}): the deployment mixes two deployments`)
    }
    const deployment = {
      jobEscrow: init.deployment.jobEscrow,
      nodeRegistry,
      chainId,
      ...(init.deployment.blockNumber === undefined ? {} : { blockNumber: init.deployment.blockNumber })
    }
    const client = createChainClient({ provider, signer, deployment }, {
      rpcTimeoutMs: init.rpcTimeoutMs,
      txTimeoutMs: init.txTimeoutMs,
      confirmations: init.confirmations,
      pollMs: init.pollMs
    })
    return { provider, address, chainId, client, readOnly: signer instanceof VoidSigner, close }
  } catch (err) {
    close()
    throw err
  }
}

/** A client's chain settings, each with the SDK's default (the job client's and the escrow client's init). */
export interface ClientChainInit extends Pick<ChainInit, 'rpcUrl' | 'provider' | 'signer' | 'deployment' | 'signal'> {
  rpcTimeoutMs?: number
  txTimeoutMs?: number
  confirmations?: number
  /** The client's poll interval; receipts and event scans poll at it, at least every 4 s. */
  pollIntervalMs?: number
}

/** {@link connectChain} with a client's settings, defaults applied. */
export async function connectClientChain (init: ClientChainInit): Promise<ChainConnection> {
  checkClientInit(init)
  return await connectChain({
    rpcUrl: init.rpcUrl,
    provider: init.provider,
    signer: init.signer,
    deployment: init.deployment,
    rpcTimeoutMs: init.rpcTimeoutMs ?? DEFAULT_RPC_TIMEOUT_MS,
    txTimeoutMs: init.txTimeoutMs ?? DEFAULT_TX_TIMEOUT_MS,
    confirmations: init.confirmations ?? DEFAULT_CONFIRMATIONS,
    pollMs: Math.min(init.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS, 4_000),
    signal: init.signal
  })
}

/** A client's init is an object (`createJobClient()` read a property of undefined). @throws InvalidConfigError */
export function checkClientInit (init: unknown): void {
  if (init == null || typeof init !== 'object' || Array.isArray(init)) {
    throw new InvalidConfigError('a client needs its init object: { rpcUrl, signer, deployment, ... } (docs/sdk.md)')
  }
}
