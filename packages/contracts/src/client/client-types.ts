import type {
  CommitTimes, CreateJobInput, EscrowJobState, JobLimits, JobStatusName, PricingParams, RegisterInput, RegisterResult, RevealInput, SampleLeaf, SeedCommitState,
  VerifierState
} from './contract-types.js'
import type { ChainEvent, EventFilter } from './events.js'
import type { TxOptions, TxResult } from './tx-sender.js'
import type { CreatedJob } from '../actions/escrow/create-job.js'
import type { SubmitResultsInput } from '../actions/escrow/submit-results.js'
import type { BlockRange } from '../actions/events/find-events.js'
import type { IncentiveClaim } from '../actions/incentive/claim-incentive.js'
import type { IncentiveAccount } from '../actions/incentive/incentive-account.js'
import type { ModelHolding } from '../actions/models/model-holding.js'
import type { ModelPrompt } from '../actions/models/model-prompts.js'
import type { JobCreatedEvent } from '../actions/events/job-created.js'
import type { NodeSlash } from '../actions/events/node-slashes.js'
import type { NodeGrade } from '../actions/registry/node-grade.js'
import type { NodeInfo } from '../actions/registry/node-info.js'
import type { ProbeScan } from '../actions/registry/probe-next.js'
import type { QosScores } from '../actions/registry/qos-scores.js'
import type { ProbeState } from '../actions/registry/probe-of.js'
import type { ExitRequest } from '../actions/registry/request-exit.js'
import type { StakeWithdrawal } from '../actions/registry/withdraw-stake.js'
import type { Deployment, JobmeshContracts } from '../deploy.js'
import type { Provider, Signer } from 'ethers'

export interface ChainClientComponents {
  /** JSON-RPC URL; a provider is created with anvil-friendly settings. Ignored when `provider` is given. */
  rpcUrl?: string
  provider?: Provider
  /** Signs transactions. Pass a plain signer (e.g. a Wallet), not a NonceManager: the client keeps the nonce. */
  signer?: Signer
  /** Contract addresses; `blockNumber` (deployment block) is where event scans start. */
  deployment: Pick<Deployment, 'nodeRegistry' | 'jobEscrow'> & Partial<Pick<Deployment, 'blockNumber' | 'chainId' | 'incentivePool' | 'modelRegistry'>>
}

export interface ChainClientInit {
  /** Per RPC call (ms), default 15 000. */
  rpcTimeoutMs?: number
  /** Per transaction until mined (ms), default 120 000. */
  txTimeoutMs?: number
  /** Poll interval (ms), default 1 000. */
  pollMs?: number
  /** Blocks per `eth_getLogs` request, default 1 000. */
  logBlockRange?: number
  /** Gas limit margin in basis points over the estimate, default 13 000 (+30 %). */
  gasMarginBps?: number
  /** Confirmations a transaction waits for, default 1. */
  confirmations?: number
}

export interface CallOptions {
  signal?: AbortSignal
}

export interface WaitOptions extends CallOptions {
  /** Default 300 000 ms. */
  timeoutMs?: number
  /** Default: the client's poll interval. */
  pollMs?: number
}


export interface WatchOptions extends EventFilter {
  /** First block to scan; default: the current block. */
  fromBlock?: number
  /** Blocks behind the head to stay (reorg safety on public chains), default 0. */
  confirmations?: number
  /** Poll interval (ms), default the client's. */
  pollMs?: number
  signal: AbortSignal
}

/** Typed access to NodeRegistry and JobEscrow; every failure is a typed error (see errors.ts). */
export interface ChainClient {
  readonly provider: Provider
  readonly contracts: JobmeshContracts
  readonly deployment: ChainClientComponents['deployment']
  /** The signer's address. @throws NoSignerError */
  address(): Promise<string>
  /** An EIP-191 signature of `message` by the signer (deterministic: RFC 6979). @throws NoSignerError */
  signMessage(message: string): Promise<string>
  blockNumber(options?: CallOptions): Promise<number>
  /** Polls until the chain reaches block `n` (returns the head). */
  waitForBlock(n: number, options?: WaitOptions): Promise<number>
  /** Registers this node on first start (idempotent); resumes it when paused; adds stake when below `stake`. */
  ensureRegistered(input: RegisterInput, options?: TxOptions): Promise<RegisterResult>
  /** What `ensureRegistered` refuses, read before anything is sent (`checkRegistration`); the wallet's node. */
  checkRegistration(input: Pick<RegisterInput, 'peerId' | 'gpuModel' | 'vramGb'>, options?: CallOptions): Promise<NodeInfo>
  /** `NodeRegistry.nodeInfo` of `address` (default: this signer). */
  nodeInfo(address?: string, options?: CallOptions): Promise<NodeInfo>
  /** Nodes registered, staked and active in the NodeRegistry (verifiers are drawn among them). */
  activeNodes(options?: CallOptions): Promise<number>
  /** `NodeRegistry.nodeGrade`: the GPU model id and VRAM tier size a node is drawn as. */
  nodeGrade(address: string, options?: CallOptions): Promise<NodeGrade>
  /** Stake of `address` (default: this signer) not locked by submission bonds. */
  freeStake(address?: string, options?: CallOptions): Promise<bigint>
  /** The stake a node locks to submit the results of a job paying `fee` (`JobEscrow.params().bondBps`). */
  submissionBond(fee: bigint, options?: CallOptions): Promise<bigint>
  /** The QoS scores B, R and P of `address` (default: this signer), and its tasks and timeouts in the window. */
  qosScores(address?: string, options?: CallOptions): Promise<QosScores>
  /** `NodeRegistry.probeOf` of `address` (default: this signer): its open probe and its last scored task. */
  probeOf(address?: string, options?: CallOptions): Promise<ProbeState>
  /** Assigns due probes and closes expired ones over the next `maxScan` nodes; sent only when there is work. */
  probeNext(maxScan: number, options?: TxOptions): Promise<ProbeScan>
  /** Answers this signer's open probe (undefined when none is open). */
  answerProbe(options?: TxOptions): Promise<TxResult | undefined>
  /** Puts this signer's paused node back into selection. */
  resume(options?: TxOptions): Promise<TxResult>
  /** Takes this signer's node out of the verifier draw until `resume` (a node that stops). */
  pause(options?: TxOptions): Promise<TxResult>
  /** Takes this signer's node out of every draw for good and starts its exit cooldown (`withdrawStake` after it). */
  requestExit(options?: TxOptions): Promise<ExitRequest>
  /** After the exit cooldown: pays this signer's whole stake back and unregisters its node. */
  withdrawStake(options?: TxOptions): Promise<StakeWithdrawal>
  /** Sets this node's timeout: it commits verifications within `pct` percent of a commit window (25..100; stake must cover it). */
  setCommitTimeout(pct: number, options?: TxOptions): Promise<TxResult>
  /** The node's recorded and current incentive share and its unclaimed earnings (default: this signer). @throws NoIncentivePoolError */
  incentiveAccount(address?: string, options?: CallOptions): Promise<IncentiveAccount>
  /** Records `node`'s current incentive share (default: this signer), settling what it earned at the old one. */
  pokeIncentive(node?: string, options?: TxOptions): Promise<TxResult>
  /** Pays this signer what it earned from the incentive pool (`NothingToClaim` when nothing). */
  claimIncentive(options?: TxOptions): Promise<IncentiveClaim>
  /** Adds `amountWei` to the incentive stream. */
  fundIncentive(amountWei: bigint, options?: TxOptions): Promise<TxResult>
  /** Records that this signer's node holds `modelId` (fetched and pinned). @throws NoModelRegistryError */
  announceModel(modelId: string, options?: TxOptions): Promise<TxResult>
  /** This signer's node no longer holds `modelId`. @throws NoModelRegistryError */
  dropModel(modelId: string, options?: TxOptions): Promise<TxResult>
  /** Asks `nodes` to download `modelId` (this signer holds it). @throws NoModelRegistryError */
  promptModel(modelId: string, nodes: readonly string[], options?: TxOptions): Promise<TxResult>
  /** How many nodes hold `modelId`, and whether `address` (default: this signer) does. @throws NoModelRegistryError */
  modelHolding(modelId: string, address?: string, options?: CallOptions): Promise<ModelHolding>
  /** Up to `limit` (100) holders of `modelId` from `offset`. @throws NoModelRegistryError */
  modelHolders(modelId: string, page?: { offset?: number, limit?: number }, options?: CallOptions): Promise<string[]>
  /** The prompts naming `node` in a block range (none when the deployment has no model registry). */
  modelPrompts(node: string, range?: BlockRange, options?: CallOptions): Promise<ModelPrompt[]>
  /** The model ids `node` is recorded on chain as holding now (from its `ModelHeld` events; empty without a model registry). */
  modelRecords(node: string, options?: CallOptions): Promise<string[]>
  /** The address a PeerId was registered with, or undefined. */
  peerAddress(peerId: string, options?: CallOptions): Promise<string | undefined>
  /** Creates and funds a job with `fee` wei; the job's id and the escrow's task value (wei per second). */
  createJob(input: CreateJobInput, fee: bigint, options?: TxOptions): Promise<CreatedJob>
  /** First half of a submission: `keccak256(abi.encode(jobId, round, resultRoot, manifestCid, sender))`. */
  commitResults(jobId: string, commitment: string, options?: TxOptions): Promise<TxResult>
  /** Second half (a later block): reveals the committed results; locks the bonds of the submitter and the payees named. */
  submitResults(jobId: string, input: SubmitResultsInput, options?: TxOptions): Promise<TxResult>
  selectVerifiers(jobId: string, options?: TxOptions): Promise<TxResult>
  /** Commits this node's next verifier seed: `hash` = keccak256(abi.encode(seed)), `index` its own label. */
  commitSeed(hash: string, index: number, options?: TxOptions): Promise<TxResult>
  /** A drawn verifier reveals its committed seed and commits the next one. */
  revealSeed(jobId: string, seed: string, nextHash: string, options?: TxOptions): Promise<TxResult>
  /** After the seed window: fixes the sample from the seeds revealed (slashing the verifiers that withheld one). */
  closeSeeds(jobId: string, options?: TxOptions): Promise<TxResult>
  /** A verifier commits its hidden vote. */
  commitVerification(jobId: string, commitment: string, options?: TxOptions): Promise<TxResult>
  /** A verifier reveals the vote it committed. */
  revealVerification(jobId: string, input: RevealInput, options?: TxOptions): Promise<TxResult>
  proveSample(jobId: string, leaves: SampleLeaf[], proofs: string[][], options?: TxOptions): Promise<TxResult>
  settle(jobId: string, options?: TxOptions): Promise<TxResult>
  /** Claims result leaves (each pays its payee) with their positional proofs. */
  claim(jobId: string, leaves: SampleLeaf[], proofs: string[][], options?: TxOptions): Promise<TxResult>
  sweep(jobId: string, options?: TxOptions): Promise<TxResult>
  refund(jobId: string, options?: TxOptions): Promise<TxResult>
  /** This node works on the job: its submissions may name it as a payee (locking the job's bond of its stake). */
  joinJob(jobId: string, options?: TxOptions): Promise<TxResult>
  withdrawCredit(options?: TxOptions): Promise<TxResult>
  credits(address?: string, options?: CallOptions): Promise<bigint>
  /** The seed `address` (default: this signer) last committed. */
  seedCommit(address?: string, options?: CallOptions): Promise<SeedCommitState>
  /** Whether the result leaf at a global MicroJob position was claimed. */
  isClaimed(jobId: string, position: number, options?: CallOptions): Promise<boolean>
  /** Whether `address` joined the job (`joinJob`), so a submission may name it as a payee. */
  hasJoined(jobId: string, address: string, options?: CallOptions): Promise<boolean>
  /** The most payees one submission may name (`JobEscrow.MAX_PAYEES`). */
  maxPayees(options?: CallOptions): Promise<number>
  /** One verifier's share of the job's fee. */
  verifierShare(jobId: string, options?: CallOptions): Promise<bigint>
  jobStatus(jobId: string, options?: CallOptions): Promise<JobStatusName>
  job(jobId: string, options?: CallOptions): Promise<EscrowJobState>
  verifiers(jobId: string, options?: CallOptions): Promise<VerifierState[]>
  validationIndex(jobId: string, macroIndex: number, options?: CallOptions): Promise<number>
  processorPool(jobId: string, options?: CallOptions): Promise<bigint>
  /** The network's pricing parameters (`JobEscrow.pricing()`): task values come from these, in ms. */
  pricing(options?: CallOptions): Promise<PricingParams>
  /** What `createJob` accepts (`MIN_VERIFIERS`, `params().maxVerifiers`, `params().maxDeadline`): check a job before paying. */
  jobLimits(options?: CallOptions): Promise<JobLimits>
  /** What sizes every job's commit window (`params()`, `MAX_RERUN_BLOCKS`): see {@link rerunAllowanceMs}. */
  commitTimes(options?: CallOptions): Promise<CommitTimes>
  /** Events in `[fromBlock, toBlock]` (default: deployment block to head), in chain order, scanned in chunks. */
  findEvents(filter: EventFilter & BlockRange, options?: CallOptions): Promise<ChainEvent[]>
  /** The job's `JobCreated` event (spec CID, creator, block), or undefined. */
  jobCreated(jobId: string, options?: CallOptions & BlockRange): Promise<JobCreatedEvent | undefined>
  /** The `JobCreated` events of the jobs `creator` made, oldest first. */
  jobsCreatedBy(creator: string, options?: CallOptions & BlockRange): Promise<JobCreatedEvent[]>
  /** Manifest CIDs submitted for the job with this result root (`ResultsSubmitted`), newest first. */
  submittedManifests(jobId: string, resultRoot: string, options?: CallOptions & BlockRange): Promise<string[]>
  /** Wallets slashed for the job's rejected rounds, in round order (`JobRejected`). */
  rejectedCulprits(jobId: string, options?: CallOptions & BlockRange): Promise<string[]>
  /** The registry's slashes of `node` (`NodeSlashed`), oldest first, each with its job and reason when an escrow event names the node. */
  nodeSlashes(node: string, options?: CallOptions & BlockRange): Promise<NodeSlash[]>
  /** Block of the job's latest `JobReleased`, or undefined. */
  releasedBlock(jobId: string, options?: CallOptions & BlockRange): Promise<number | undefined>
  /** Unix seconds of the latest block (the clock of the escrow's deadlines). */
  chainTime(options?: CallOptions): Promise<number>
  /** A wallet's balance (wei). */
  balance(address: string, options?: CallOptions): Promise<bigint>
  /**
   * Follows events by polling `eth_getLogs` over block ranges with a cursor (no `eth_newFilter`). Transient RPC
   * errors are retried at the poll interval; ends when `signal` aborts.
   */
  watchEvents(options: WatchOptions): AsyncGenerator<ChainEvent, void, undefined>
}
