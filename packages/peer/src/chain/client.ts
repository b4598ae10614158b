import { connect, createProvider } from '@jobmesh/contracts'
import { logger } from '@libp2p/logger'
import { ZeroHash, id as keccakText } from 'ethers'
import {
  DEFAULT_GAS_MARGIN_BPS, DEFAULT_LOG_BLOCK_RANGE, DEFAULT_POLL_MS, DEFAULT_RPC_TIMEOUT_MS, DEFAULT_TX_TIMEOUT_MS,
  DEFAULT_WAIT_TIMEOUT_MS, JOB_STATUS_NAMES
} from './constants.js'
import { NoProviderError, NoSignerError } from './errors.js'
import { decodeLog, filterTopics } from './events.js'
import { labelId } from './labels.js'
import { TxSender } from './tx.js'
import { delay, pollUntil, withTimeout } from './wait.js'
import { wrapChainError } from './wrap.js'
import type { ChainEvent, EventFilter } from './events.js'
import type { TxOptions, TxResult } from './tx.js'
import type { PricingParams } from '../protocol/index.js'
import type { Deployment, JobmeshContracts } from '@jobmesh/contracts'
import type { Provider, Signer } from 'ethers'

const log = logger('jobmesh:chain')

/** Status names of `JobEscrow.Status`. */
export type JobStatusName = typeof JOB_STATUS_NAMES[number]

export interface ChainClientComponents {
  /** JSON-RPC URL; a provider is created with anvil-friendly settings. Ignored when `provider` is given. */
  rpcUrl?: string
  provider?: Provider
  /** Signs transactions. Pass a plain signer (e.g. a Wallet), not a NonceManager: the client keeps the nonce. */
  signer?: Signer
  /** Contract addresses; `blockNumber` (deployment block) is where event scans start. */
  deployment: Pick<Deployment, 'nodeRegistry' | 'jobEscrow'> & Partial<Pick<Deployment, 'blockNumber' | 'chainId'>>
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

/** Input of {@link ChainClient.createJob}; GPU model and model are names (hashed with {@link labelId}). */
export interface CreateJobInput {
  specCid: string
  nonce: bigint
  jobRoot: string
  seed: bigint
  macroJobs: number
  microJobsPerMacro: number
  minVramGb: number
  gpuModel?: string
  modelId?: string
  identicalHardware?: boolean
  k: number
  /** MicroJobs sampled per MacroJob (the verification level), default 1. */
  samples?: number
  /** Unix seconds. */
  deadline: number
  secondsPerMicroJob: number
}

/** A job as `JobEscrow.jobs(jobId)` returns it. */
export interface EscrowJobState {
  jobId: string
  status: JobStatusName
  creator: string
  k: number
  /** MicroJobs sampled per MacroJob. */
  samples: number
  assigned: number
  commits: number
  reveals: number
  proven: boolean
  /** Unix seconds. */
  deadline: number
  jobRoot: string
  seed: bigint
  fee: bigint
  macroJobs: number
  microJobsPerMacro: number
  entropySet: boolean
  rejections: number
  submitter: string
  submitBlock: number
  commitDeadline: number
  revealDeadline: number
  processorPaid: bigint
  /** Unix seconds of the release, 0 before. */
  releasedAt: number
  resultRoot: string
  sampleEntropy: string
  claimedHash: string
  /** Hardware the job needs: its verification-queue group is (minVramGb, chosenModel or else gpuModel). */
  minVramGb: number
  gpuModel: string
  /** The GPU model an `identical` job's first verifier fixed (bytes32(0) before). */
  chosenModel: string
}

export interface VerifierState {
  node: string
  commitOrder: number
  revealOrder: number
  committed: boolean
  revealed: boolean
  /** 0: the sample matched; else 1 + the first sample position it found wrong. */
  badPos: number
  processorBlame: boolean
}

/** `ResultLeaf` of `proveSample`, `claim` and a reveal. */
export interface SampleLeaf {
  microId: string
  macroIndex: number
  index: number
  outputHash: string
  payee: string
}

/** `JobEscrow.Reveal`: a verifier's vote. */
export interface RevealInput {
  salt: string
  processorBlame: boolean
  /** The leaf hashes this verifier expects, in sample order. */
  expected: string[]
  /** The proven leaf hashes (from `SampleProven`), in sample order. */
  proven: string[]
  /** The proven leaf at the first position where `expected` differs (any leaf when none differs). */
  badLeaf: SampleLeaf
}

export interface RegisterInput {
  peerId: string
  /** GPU model name (hashed with {@link labelId}); must not be empty. */
  gpuModel: string
  vramGb: number
  /** Stake the node should have at least (wei). */
  stake: bigint
}

export interface RegisterResult {
  /** True when this call registered the node. */
  registered: boolean
  /** Stake added by this call (wei). */
  stakeAdded: bigint
  /** Stake after the call (wei). */
  stake: bigint
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
  blockNumber(options?: CallOptions): Promise<number>
  /** Polls until the chain reaches block `n` (returns the head). */
  waitForBlock(n: number, options?: WaitOptions): Promise<number>
  /** Registers this node on first start (idempotent); resumes it when paused; adds stake when below `stake`. */
  ensureRegistered(input: RegisterInput, options?: TxOptions): Promise<RegisterResult>
  /** `NodeRegistry.nodeInfo` of `address` (default: this signer). */
  nodeInfo(address?: string, options?: CallOptions): Promise<{ registered: boolean, stake: bigint, eligible: boolean, busy: boolean, score: bigint, peerIdHash: string, paused: boolean, exiting: boolean, kickedOut: boolean }>
  /** The address a PeerId was registered with, or undefined. */
  peerAddress(peerId: string, options?: CallOptions): Promise<string | undefined>
  createJob(input: CreateJobInput, fee: bigint, options?: TxOptions): Promise<TxResult & { jobId: string }>
  /** First half of a submission: `keccak256(abi.encode(jobId, round, resultRoot, manifestCid, sender))`. */
  commitResults(jobId: string, commitment: string, options?: TxOptions): Promise<TxResult>
  /** Second half (a later block): reveals the committed results. */
  submitResults(jobId: string, input: { resultRoot: string, manifestCid: string }, options?: TxOptions): Promise<TxResult>
  selectVerifiers(jobId: string, options?: TxOptions): Promise<TxResult>
  commit(jobId: string, commitment: string, options?: TxOptions): Promise<TxResult>
  reveal(jobId: string, input: RevealInput, options?: TxOptions): Promise<TxResult>
  proveSample(jobId: string, leaves: SampleLeaf[], proofs: string[][], options?: TxOptions): Promise<TxResult>
  settle(jobId: string, options?: TxOptions): Promise<TxResult>
  /** Claims result leaves (each pays its payee) with their positional proofs. */
  claim(jobId: string, leaves: SampleLeaf[], proofs: string[][], options?: TxOptions): Promise<TxResult>
  sweep(jobId: string, options?: TxOptions): Promise<TxResult>
  refund(jobId: string, options?: TxOptions): Promise<TxResult>
  withdrawCredit(options?: TxOptions): Promise<TxResult>
  credits(address?: string, options?: CallOptions): Promise<bigint>
  /** Whether the result leaf at a global MicroJob position was claimed. */
  isClaimed(jobId: string, position: number, options?: CallOptions): Promise<boolean>
  /** One verifier's share of the job's fee. */
  verifierShare(jobId: string, options?: CallOptions): Promise<bigint>
  jobStatus(jobId: string, options?: CallOptions): Promise<JobStatusName>
  job(jobId: string, options?: CallOptions): Promise<EscrowJobState>
  verifiers(jobId: string, options?: CallOptions): Promise<VerifierState[]>
  validationIndex(jobId: string, macroIndex: number, options?: CallOptions): Promise<number>
  processorPool(jobId: string, options?: CallOptions): Promise<bigint>
  /** The network's pricing parameters (`JobEscrow.pricing()`): task values come from these, in ms. */
  pricing(options?: CallOptions): Promise<PricingParams>
  /** Events in `[fromBlock, toBlock]` (default: deployment block to head), in chain order, scanned in chunks. */
  findEvents(filter: EventFilter & { fromBlock?: number, toBlock?: number }, options?: CallOptions): Promise<ChainEvent[]>
  /**
   * Follows events by polling `eth_getLogs` over block ranges with a cursor (no `eth_newFilter`). Transient RPC
   * errors are retried at the poll interval; ends when `signal` aborts.
   */
  watchEvents(options: WatchOptions): AsyncGenerator<ChainEvent, void, undefined>
}

function leafTuple (l: SampleLeaf): [string, number, number, string, string] {
  return [l.microId, l.macroIndex, l.index, l.outputHash, l.payee]
}

/**
 * Creates a chain client over a deployment.
 *
 * @example
 * ```ts
 * const chain = createChainClient({ rpcUrl, signer: new Wallet(key), deployment })
 * await chain.ensureRegistered({ peerId: node.peerId.toString(), gpuModel: 'RTX 4090', vramGb: 24, stake: 10n ** 16n })
 * for await (const e of chain.watchEvents({ names: ['VerifierAssigned'], topic2: await chain.address(), signal })) { ... }
 * ```
 */
export function createChainClient (components: ChainClientComponents, init: ChainClientInit = {}): ChainClient {
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
  const address = async (): Promise<string> => requireSender('address').from()
  const blockNumber = async (options?: CallOptions): Promise<number> => read('eth_blockNumber', () => provider.getBlockNumber(), options)

  const getLogs = async (filter: EventFilter, from: number, to: number, options?: CallOptions): Promise<ChainEvent[]> => {
    const logs = await read(`eth_getLogs ${from}-${to}`, () => provider.getLogs({
      address: [escrowAddress, registryAddress],
      fromBlock: from,
      toBlock: to,
      topics: filterTopics(filter)
    }), options)
    return logs
      .map(l => decodeLog(l))
      .filter((e): e is ChainEvent => e != null)
      .sort((a, b) => a.blockNumber - b.blockNumber || a.logIndex - b.logIndex)
  }

  const job = async (jobId: string, options?: CallOptions): Promise<EscrowJobState> => {
    const j = await read(`jobs(${jobId})`, () => jobEscrow.jobs(jobId), options)
    return {
      jobId,
      status: JOB_STATUS_NAMES[Number(j.status)] ?? 'None',
      creator: j.creator,
      k: Number(j.k),
      samples: Number(j.samples),
      assigned: Number(j.assigned),
      commits: Number(j.commits),
      reveals: Number(j.reveals),
      proven: j.proven,
      deadline: Number(j.deadline),
      jobRoot: j.jobRoot,
      seed: j.seed,
      fee: j.fee,
      macroJobs: Number(j.macroJobs),
      microJobsPerMacro: Number(j.microJobsPerMacro),
      entropySet: j.entropySet,
      rejections: Number(j.rejections),
      submitter: j.submitter,
      submitBlock: Number(j.submitBlock),
      commitDeadline: Number(j.commitDeadline),
      revealDeadline: Number(j.revealDeadline),
      processorPaid: j.processorPaid,
      releasedAt: Number(j.releasedAt),
      resultRoot: j.resultRoot,
      sampleEntropy: j.sampleEntropy,
      claimedHash: j.claimedHash,
      minVramGb: Number(j.minVramGb),
      gpuModel: j.gpuModel,
      chosenModel: j.chosenModel
    }
  }

  const nodeInfo: ChainClient['nodeInfo'] = async (addr, options) => {
    const a = addr ?? await address()
    const v = await read(`nodeInfo(${a})`, () => nodeRegistry.nodeInfo(a), options)
    return { registered: v.registered, stake: v.stake, eligible: v.eligible, busy: v.busy, score: v.score, peerIdHash: v.peerIdHash, paused: v.paused, exiting: v.exiting, kickedOut: v.kickedOut }
  }

  return {
    provider,
    contracts,
    deployment: components.deployment,
    address,
    blockNumber,
    async waitForBlock (n, options = {}) {
      return pollUntil(async () => {
        const head = await blockNumber(options)
        return head >= n ? head : undefined
      }, { pollMs: options.pollMs ?? pollMs, timeoutMs: options.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS, what: `block ${n}`, signal: options.signal })
    },
    async ensureRegistered (input, options = {}) {
      const info = await nodeInfo(undefined, options)
      if (!info.registered) {
        const tx = await registryTx('NodeRegistry.register', 'register', [input.peerId, labelId(input.gpuModel), input.vramGb], options, input.stake)
        log('registered %s (%s) with stake %s in block %d', input.peerId, await address(), input.stake, tx.blockNumber)
        return { registered: true, stakeAdded: input.stake, stake: input.stake }
      }
      const expected = keccakText(input.peerId)
      if (info.peerIdHash !== expected) log('address %s is registered with another PeerId', await address())
      if (info.paused) {
        // paused by the registry after a verification it missed entirely (offline): back into selection
        await registryTx('NodeRegistry.resume', 'resume', [], options)
        log('resumed %s', await address())
      }
      if (info.stake >= input.stake) return { registered: false, stakeAdded: 0n, stake: info.stake }
      const add = input.stake - info.stake
      await registryTx('NodeRegistry.addStake', 'addStake', [], options, add)
      return { registered: false, stakeAdded: add, stake: input.stake }
    },
    nodeInfo,
    async peerAddress (peerId, options) {
      const a = await read('peerIdOwner', () => nodeRegistry.peerIdOwner(keccakText(peerId)), options)
      return /^0x0{40}$/i.test(a) ? undefined : a
    },
    async createJob (input, fee, options) {
      const params = {
        specCid: input.specCid,
        nonce: input.nonce,
        jobRoot: input.jobRoot,
        seed: input.seed,
        macroJobs: input.macroJobs,
        microJobsPerMacro: input.microJobsPerMacro,
        minVramGb: input.minVramGb,
        gpuModel: labelId(input.gpuModel),
        modelId: labelId(input.modelId),
        identicalHardware: input.identicalHardware ?? false,
        k: input.k,
        samples: input.samples ?? 1,
        deadline: input.deadline,
        secondsPerMicroJob: input.secondsPerMicroJob
      }
      const tx = await escrowTx('JobEscrow.createJob', 'createJob', [params], options, fee)
      const created = tx.events.find(e => e.name === 'JobCreated')
      return { ...tx, jobId: String(created?.args.jobId ?? ZeroHash) }
    },
    commitResults: async (jobId, commitment, options) => escrowTx('JobEscrow.commitResults', 'commitResults', [jobId, commitment], options),
    submitResults: async (jobId, input, options) =>
      escrowTx('JobEscrow.submitResults', 'submitResults', [jobId, input.resultRoot, input.manifestCid], options),
    selectVerifiers: async (jobId, options) => escrowTx('JobEscrow.selectVerifiers', 'selectVerifiers', [jobId], options),
    commit: async (jobId, commitment, options) => escrowTx('JobEscrow.commitVerification', 'commitVerification', [jobId, commitment], options),
    reveal: async (jobId, r, options) =>
      escrowTx('JobEscrow.revealVerification', 'revealVerification', [jobId, [r.salt, r.processorBlame, r.expected, r.proven, leafTuple(r.badLeaf)]], options),
    proveSample: async (jobId, leaves, proofs, options) =>
      escrowTx('JobEscrow.proveSample', 'proveSample', [jobId, leaves.map(leafTuple), proofs], options),
    settle: async (jobId, options) => escrowTx('JobEscrow.settle', 'settle', [jobId], options),
    claim: async (jobId, leaves, proofs, options) => escrowTx('JobEscrow.claim', 'claim', [jobId, leaves.map(leafTuple), proofs], options),
    sweep: async (jobId, options) => escrowTx('JobEscrow.sweep', 'sweep', [jobId], options),
    refund: async (jobId, options) => escrowTx('JobEscrow.refund', 'refund', [jobId], options),
    withdrawCredit: async (options) => escrowTx('JobEscrow.withdrawCredit', 'withdrawCredit', [], options),
    async credits (addr, options) {
      const a = addr ?? await address()
      return read('credits', () => jobEscrow.credits(a), options)
    },
    isClaimed: async (jobId, position, options) => read('isClaimed', () => jobEscrow.isClaimed(jobId, position), options),
    verifierShare: async (jobId, options) => read('verifierShare', () => jobEscrow.verifierShare(jobId), options),
    async jobStatus (jobId, options) {
      const s = await read(`statusOf(${jobId})`, () => jobEscrow.statusOf(jobId), options)
      return JOB_STATUS_NAMES[Number(s)] ?? 'None'
    },
    job,
    async verifiers (jobId, options) {
      const vs = await read('verifiersOf', () => jobEscrow.verifiersOf(jobId), options)
      return vs.map(v => ({
        node: v.node, commitOrder: Number(v.commitOrder), revealOrder: Number(v.revealOrder), committed: v.committed, revealed: v.revealed,
        badPos: Number(v.badPos), processorBlame: v.processorBlame
      }))
    },
    validationIndex: async (jobId, m, options) => Number(await read('validationIndex', () => jobEscrow.validationIndex(jobId, m), options)),
    processorPool: async (jobId, options) => read('processorPool', () => jobEscrow.processorPool(jobId), options),
    pricing: async (options) => {
      const [overheadMs, msPerMicroJob] = await read('pricing', () => jobEscrow.pricing(), options)
      return { overheadMs: Number(overheadMs), msPerMicroJob: Number(msPerMicroJob) }
    },
    async findEvents (filter, options) {
      const from = filter.fromBlock ?? components.deployment.blockNumber ?? 0
      const to = filter.toBlock ?? await blockNumber(options)
      const out: ChainEvent[] = []
      for (let a = from; a <= to; a += logBlockRange) {
        out.push(...await getLogs(filter, a, Math.min(to, a + logBlockRange - 1), options))
      }
      return out
    },
    async * watchEvents (options) {
      const { signal } = options
      const every = options.pollMs ?? pollMs
      const confirmations = options.confirmations ?? 0
      let cursor = options.fromBlock ?? await blockNumber({ signal })
      while (!signal.aborted) {
        let events: ChainEvent[] = []
        let to = cursor - 1
        try {
          const head = (await blockNumber({ signal })) - confirmations
          if (head >= cursor) {
            to = Math.min(head, cursor + logBlockRange - 1)
            events = await getLogs(options, cursor, to, { signal })
          }
        } catch (err) {
          if (signal.aborted) return
          log.error('event watch at block %d: %e', cursor, err)
        }
        for (const e of events) {
          if (signal.aborted) return
          yield e
        }
        if (to >= cursor) {
          cursor = to + 1
          continue
        }
        try {
          await delay(every, signal)
        } catch {
          return
        }
      }
    }
  }
}
