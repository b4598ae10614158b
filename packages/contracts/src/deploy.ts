import { Contract, ContractFactory, JsonRpcProvider, isError } from 'ethers'
import {
  incentivePoolAbi, incentivePoolBytecode, jobEscrowAbi, jobEscrowBytecode, modelRegistryAbi, modelRegistryBytecode, nodeRegistryAbi, nodeRegistryBytecode
} from './artifacts.generated.js'
import {
  DEFAULT_CONFIRMATIONS,
  DEFAULT_ESCROW_PARAMS,
  DEFAULT_INCENTIVE_PARAMS,
  DEFAULT_REGISTRY_PARAMS,
  DEFAULT_RPC_TIMEOUT_MS,
  DEFAULT_TX_TIMEOUT_MS
} from './constants.js'
import { withTimeout } from './client/wait.js'
import { isUnreachable } from './client/wrap-error.js'
import { ChainMismatchError, DeploymentFailedError, EscrowNotFoundError, InvalidDeploymentError, RpcUnreachableError } from './errors.js'
import { registryOf } from './actions/registry/registry-of.js'
import type { TypedContract } from './types.js'
import type { ContractRunner, Provider, Signer, TransactionReceipt, TransactionResponse } from 'ethers'

/** `NodeRegistry` constructor parameters (Solidity `NodeRegistry.Params`). */
export interface RegistryParams {
  /** Minimum stake to register and to stay eligible, in wei. */
  minStake: bigint
  /** Stake at which the stake score saturates, in wei. */
  stakeCap: bigint
  /** Seconds between `requestExit` and `withdraw`. */
  exitCooldown: number
  /** Bound on picks per verifier for the model multiplier's coin (the last pick is accepted). */
  maxDrawAttempts: number
  /** Seconds without a scored task after which an active node is due a probe task. */
  probeInterval: number
}

/** `JobEscrow` constructor parameters (Solidity `JobEscrowBase.Params`, docs/contracts.md). */
export interface EscrowParams {
  /** Upper bound on a job's verifier count k. */
  maxVerifiers: number
  /** Upper bound on macroJobs * samples (leaves proven per verification round). */
  maxSampleLeaves: number
  /** Commit window in blocks, from the block the k-th verifier is assigned, plus the sample's re-run time. */
  commitWindow: number
  /** Reveal window in blocks, after the commit window. */
  revealWindow: number
  /** Block time used to turn the sample's re-run seconds into commit-window blocks. */
  secondsPerBlock: number
  /**
   * Task value: the fixed per-job overhead (download, preparation, waiting for verification, upload), in ms. A job's
   * estimated time is `overheadMs + microJobs * msPerMicroJob` (network constants, never the creator's estimate).
   */
  overheadMs: number
  /** Task value: the network's time of one MicroJob, in ms (> 0). */
  msPerMicroJob: number
  /** Verification queue max size = max(queueMin, activeNodes * alphaBps / 10 000). */
  alphaBps: number
  queueMin: number
  /** Latest deadline, in seconds from creation. */
  maxDeadline: number
  /** Seconds after the release during which processors claim; then `sweep` sends the rest to the treasury. */
  claimWindow: number
  /** Submitter bond and culprit slash, basis points of the fee. */
  bondBps: number
  /** Share of the bond slashed when the draw window is missed, basis points. */
  drawPenaltyBps: number
  /** Minimum fee per verifier share, in wei. */
  minFee: bigint
  /** Receives swept and forfeited funds; the zero address means the deployer. */
  treasury: string
}

/** `IncentivePool` constructor parameters (docs/contracts.md, Incentives). */
export interface IncentiveParams {
  /** Weight of the VRAM score R in a node's share, basis points (the three weights sum to 10 000). */
  weightR: number
  /** Weight of the timeout score P, basis points. */
  weightP: number
  /** Weight of the submission-speed score B, basis points. */
  weightB: number
  /** Seconds each funding is streamed over. */
  period: number
}

/** All deployment parameters. */
export interface DeployParams {
  registry: RegistryParams
  escrow: EscrowParams
  /** Absent in deployments made before the incentive pool existed. */
  incentive?: IncentiveParams
}

/** Options of {@link deploy}: parameter overrides (merged over the defaults) and waiting behaviour. */
export interface DeployInit {
  registry?: Partial<RegistryParams>
  escrow?: Partial<EscrowParams>
  incentive?: Partial<IncentiveParams>
  /** Confirmations to wait for on each transaction (default 1). */
  confirmations?: number
  /** Timeout per transaction in ms (default 120 000). */
  timeout?: number
  signal?: AbortSignal
}

/** Where the contracts live, and how they were set up. Serialise with {@link serializeDeployment}. */
export interface Deployment {
  chainId: number
  /** Address of `NodeRegistry`. */
  nodeRegistry: string
  /** Address of `JobEscrow`. */
  jobEscrow: string
  /** Address of `IncentivePool` (absent in deployments made before it existed). */
  incentivePool?: string
  /** Address of `ModelRegistry` (absent in deployments made before it existed). */
  modelRegistry?: string
  /** Block of the first deployment transaction (scan events from here). */
  blockNumber: number
  /** The account that deployed (and wired) the contracts. */
  deployer: string
  params: DeployParams
  /** Hashes of the deployment transactions. */
  transactions: { nodeRegistry: string, jobEscrow: string, setEscrow: string, incentivePool?: string, modelRegistry?: string }
}

/** Typed `NodeRegistry` contract. */
export type NodeRegistryContract = TypedContract<typeof nodeRegistryAbi>
/** Typed `JobEscrow` contract. */
export type JobEscrowContract = TypedContract<typeof jobEscrowAbi>
/** Typed `IncentivePool` contract. */
export type IncentivePoolContract = TypedContract<typeof incentivePoolAbi>
/** Typed `ModelRegistry` contract. */
export type ModelRegistryContract = TypedContract<typeof modelRegistryAbi>

/** The contracts of a deployment, connected to a runner. */
export interface JobmeshContracts {
  nodeRegistry: NodeRegistryContract
  jobEscrow: JobEscrowContract
  /** Absent when the deployment has no incentive pool. */
  incentivePool?: IncentivePoolContract
  /** Absent when the deployment has no model registry. */
  modelRegistry?: ModelRegistryContract
}

/** The defaults merged with overrides. */
export function resolveDeployParams (init: Pick<DeployInit, 'registry' | 'escrow' | 'incentive'> = {}): Required<DeployParams> {
  return {
    registry: { ...DEFAULT_REGISTRY_PARAMS, ...init.registry },
    escrow: { ...DEFAULT_ESCROW_PARAMS, ...init.escrow },
    incentive: { ...DEFAULT_INCENTIVE_PARAMS, ...init.incentive }
  }
}

function describe (err: unknown): string {
  const e = err as { shortMessage?: string, message?: string }
  return e.shortMessage ?? e.message ?? String(err)
}

function wrap (err: unknown, what: string): Error {
  if ((err as Error)?.name === 'AbortError') return err as Error
  if (!isError(err, 'TIMEOUT') && isUnreachable(err)) {
    return new RpcUnreachableError(`${what}: RPC endpoint unreachable: ${describe(err)}`, { cause: err })
  }
  return new DeploymentFailedError(`${what} failed: ${describe(err)}`, { cause: err })
}

async function mined (tx: TransactionResponse | null, what: string, init: DeployInit): Promise<TransactionReceipt> {
  if (tx === null) throw new DeploymentFailedError(`${what}: no transaction was sent`)
  const timeout = init.timeout ?? DEFAULT_TX_TIMEOUT_MS
  let receipt: TransactionReceipt | null
  try {
    receipt = await withTimeout(tx.wait(init.confirmations ?? DEFAULT_CONFIRMATIONS, timeout), { timeoutMs: timeout, what, signal: init.signal })
  } catch (err) {
    throw wrap(err, what)
  }
  if (receipt === null || receipt.status !== 1) {
    throw new DeploymentFailedError(`${what} reverted (tx ${tx.hash})`)
  }
  return receipt
}

async function chainIdOf (provider: Provider | null, signal?: AbortSignal): Promise<number> {
  if (provider === null) throw new DeploymentFailedError('the signer has no provider')
  try {
    // a JSON-RPC provider is asked (its network may be a static one, taken from the very deployment being checked)
    if (provider instanceof JsonRpcProvider) return Number(BigInt(await withTimeout(provider.send('eth_chainId', []) as Promise<string>, { timeoutMs: DEFAULT_RPC_TIMEOUT_MS, what: 'eth_chainId', signal })))
    return Number((await withTimeout(provider.getNetwork(), { timeoutMs: DEFAULT_RPC_TIMEOUT_MS, what: 'getNetwork', signal })).chainId)
  } catch (err) {
    throw wrap(err, 'reading the chain id')
  }
}

/**
 * Deploys `NodeRegistry`, then `JobEscrow(registry)`, then wires them with `registry.setEscrow(escrow)` (the order
 * of docs/contracts.md), then `IncentivePool(registry)` and `ModelRegistry(registry)`. Each transaction is awaited (with a timeout) and checked.
 *
 * @example
 * ```ts
 * const anvil = await startAnvil()
 * const signer = new Wallet(anvil.accounts[0].privateKey, createProvider(anvil.rpcUrl, { chainId: anvil.chainId }))
 * const deployment = await deploy(signer)
 * const { jobEscrow } = connect(deployment, signer)
 * ```
 * @throws DeploymentFailedError (a reverted or unmined transaction), RpcUnreachableError, AbortError
 */
export async function deploy (signer: Signer, init: DeployInit = {}): Promise<Deployment> {
  init.signal?.throwIfAborted()
  const params = resolveDeployParams(init)
  const chainId = await chainIdOf(signer.provider, init.signal)
  let deployer: string
  try {
    deployer = await withTimeout(signer.getAddress(), { timeoutMs: DEFAULT_RPC_TIMEOUT_MS, what: 'getAddress', signal: init.signal })
  } catch (err) {
    throw wrap(err, 'reading the deployer address')
  }

  const send = async (what: string, fn: () => Promise<TransactionResponse | null>): Promise<TransactionReceipt> => {
    init.signal?.throwIfAborted()
    let tx: TransactionResponse | null
    try {
      tx = await withTimeout(fn(), { timeoutMs: DEFAULT_RPC_TIMEOUT_MS, what, signal: init.signal })
    } catch (err) {
      throw wrap(err, what)
    }
    return mined(tx, what, init)
  }

  const registryFactory = new ContractFactory(nodeRegistryAbi, nodeRegistryBytecode, signer)
  const registryReceipt = await send('deploying NodeRegistry', async () =>
    (await registryFactory.deploy(params.registry)).deploymentTransaction())
  const nodeRegistry = registryReceipt.contractAddress
  if (nodeRegistry == null) throw new DeploymentFailedError('deploying NodeRegistry: the receipt has no contract address')

  const escrowFactory = new ContractFactory(jobEscrowAbi, jobEscrowBytecode, signer)
  const escrowReceipt = await send('deploying JobEscrow', async () =>
    (await escrowFactory.deploy(nodeRegistry, params.escrow)).deploymentTransaction())
  const jobEscrow = escrowReceipt.contractAddress
  if (jobEscrow == null) throw new DeploymentFailedError('deploying JobEscrow: the receipt has no contract address')

  const registry = new Contract(nodeRegistry, nodeRegistryAbi, signer) as unknown as NodeRegistryContract
  const wireReceipt = await send('NodeRegistry.setEscrow', () => registry.setEscrow(jobEscrow))

  const { weightR, weightP, weightB, period } = params.incentive
  const poolFactory = new ContractFactory(incentivePoolAbi, incentivePoolBytecode, signer)
  const poolReceipt = await send('deploying IncentivePool', async () =>
    (await poolFactory.deploy(nodeRegistry, weightR, weightP, weightB, period)).deploymentTransaction())
  const incentivePool = poolReceipt.contractAddress
  if (incentivePool == null) throw new DeploymentFailedError('deploying IncentivePool: the receipt has no contract address')

  const modelsFactory = new ContractFactory(modelRegistryAbi, modelRegistryBytecode, signer)
  const modelsReceipt = await send('deploying ModelRegistry', async () =>
    (await modelsFactory.deploy(nodeRegistry)).deploymentTransaction())
  const modelRegistry = modelsReceipt.contractAddress
  if (modelRegistry == null) throw new DeploymentFailedError('deploying ModelRegistry: the receipt has no contract address')

  return {
    chainId,
    nodeRegistry,
    jobEscrow,
    incentivePool,
    modelRegistry,
    blockNumber: registryReceipt.blockNumber,
    deployer,
    params,
    transactions: {
      nodeRegistry: registryReceipt.hash, jobEscrow: escrowReceipt.hash, setEscrow: wireReceipt.hash, incentivePool: poolReceipt.hash,
      modelRegistry: modelsReceipt.hash
    }
  }
}

/** Typed ethers contracts for a deployment; `runner` is a signer (to send) or a provider (read only). */
export function connect (deployment: Pick<Deployment, 'nodeRegistry' | 'jobEscrow' | 'incentivePool' | 'modelRegistry'>, runner: ContractRunner): JobmeshContracts {
  return {
    nodeRegistry: new Contract(deployment.nodeRegistry, nodeRegistryAbi, runner) as unknown as NodeRegistryContract,
    jobEscrow: new Contract(deployment.jobEscrow, jobEscrowAbi, runner) as unknown as JobEscrowContract,
    ...(deployment.incentivePool == null
      ? {}
      : { incentivePool: new Contract(deployment.incentivePool, incentivePoolAbi, runner) as unknown as IncentivePoolContract }),
    ...(deployment.modelRegistry == null
      ? {}
      : { modelRegistry: new Contract(deployment.modelRegistry, modelRegistryAbi, runner) as unknown as ModelRegistryContract })
  }
}

/**
 * Checks that `provider` is on the deployment's chain, that its contracts have code there, and that a JobEscrow
 * answers at `jobEscrow` and settles against the deployment's NodeRegistry.
 * @throws ChainMismatchError, EscrowNotFoundError (no contract, or not a JobEscrow, at `jobEscrow`),
 * DeploymentFailedError (no code at another address, or an escrow of another NodeRegistry), RpcUnreachableError
 */
export async function verifyDeployment (deployment: Deployment, provider: Provider, signal?: AbortSignal): Promise<void> {
  const chainId = await chainIdOf(provider, signal)
  if (chainId !== deployment.chainId) {
    throw new ChainMismatchError(`the deployment is for chain ${deployment.chainId}, the provider is on chain ${chainId}`)
  }
  const contracts: Array<[string, string]> = [['NodeRegistry', deployment.nodeRegistry], ['JobEscrow', deployment.jobEscrow]]
  if (deployment.incentivePool != null) contracts.push(['IncentivePool', deployment.incentivePool])
  if (deployment.modelRegistry != null) contracts.push(['ModelRegistry', deployment.modelRegistry])
  for (const [name, address] of contracts) {
    let code: string
    try {
      code = await withTimeout(provider.getCode(address), { timeoutMs: DEFAULT_RPC_TIMEOUT_MS, what: 'getCode', signal })
    } catch (err) {
      throw wrap(err, `reading the code of ${name}`)
    }
    if (code === '0x' && name === 'JobEscrow') throw new EscrowNotFoundError(address, 'no-code', chainId)
    if (code === '0x') throw new DeploymentFailedError(`${name} has no code at ${address} on chain ${chainId}`)
  }
  const registry = await registryOf(provider, deployment.jobEscrow, { signal })
  if (registry.toLowerCase() !== deployment.nodeRegistry.toLowerCase()) {
    throw new DeploymentFailedError(`the JobEscrow at ${deployment.jobEscrow} settles against the NodeRegistry at ${registry}, not the deployment's ${deployment.nodeRegistry} on chain ${chainId}: the deployment file mixes two deployments`)
  }
}

/** JSON text of a deployment (bigints as decimal strings), as written to `deployments/<chainId>.json`. */
export function serializeDeployment (deployment: Deployment): string {
  return JSON.stringify(deployment, (_k, v: unknown) => typeof v === 'bigint' ? v.toString() : v, 2) + '\n'
}

/**
 * Parses {@link serializeDeployment}'s output.
 * @throws InvalidDeploymentError (not JSON, or a field the chain access needs is missing or malformed)
 */
export function parseDeployment (json: string): Deployment {
  let d: Deployment
  try {
    d = JSON.parse(json) as Deployment
  } catch (err) {
    throw new InvalidDeploymentError(`not JSON: ${(err as Error).message}`)
  }
  const field = (ok: boolean, name: string, what: string): void => {
    if (!ok) throw new InvalidDeploymentError(`${name} must be ${what}`)
  }
  const isAddress = (v: unknown): boolean => typeof v === 'string' && /^0x[0-9a-fA-F]{40}$/.test(v)
  field(typeof d === 'object' && d !== null, 'the file', 'a JSON object')
  field(Number.isSafeInteger(d.chainId) && d.chainId > 0, 'chainId', 'a positive whole number')
  field(isAddress(d.nodeRegistry), 'nodeRegistry', 'a 0x address')
  field(isAddress(d.jobEscrow), 'jobEscrow', 'a 0x address')
  for (const name of ['incentivePool', 'modelRegistry'] as const) field(d[name] == null || isAddress(d[name]), name, 'a 0x address when present')
  field(Number.isSafeInteger(d.blockNumber) && d.blockNumber >= 0, 'blockNumber', 'a whole number')
  const amount = (v: unknown, name: string): bigint => {
    const text = typeof v === 'string' || typeof v === 'number' ? String(v) : ''
    if (!/^[0-9]+$/.test(text)) throw new InvalidDeploymentError(`${name} must be a whole number of wei`)
    return BigInt(text)
  }
  field(typeof d.params?.registry === 'object' && typeof d.params?.escrow === 'object', 'params', 'an object with registry and escrow')
  d.params.registry.minStake = amount(d.params.registry.minStake, 'params.registry.minStake')
  d.params.registry.stakeCap = amount(d.params.registry.stakeCap, 'params.registry.stakeCap')
  d.params.escrow.minFee = amount(d.params.escrow.minFee, 'params.escrow.minFee')
  return d
}
