import { JobStatus, connect } from '@jobmesh/contracts'
import { ZeroHash, id as keccakText } from 'ethers'
import { race } from '../abort.js'
import { ChainError, ContractRevertError } from '../errors.js'
import { wrapChainError } from './wrap.js'
import type { JobEscrowContract } from '@jobmesh/contracts'
import type { JobSpec, PricingParams } from '@jobmesh/peer/protocol'
import type { ContractRunner, Provider, TransactionReceipt } from 'ethers'

/** Status names of `JobEscrow.Status`. */
export type JobStatusName = 'None' | 'Open' | 'Submitted' | 'Released' | 'Refunded'

const STATUS_NAMES: readonly JobStatusName[] = ['None', 'Open', 'Submitted', 'Released', 'Refunded']

/** The name of a numeric escrow status. */
export function statusName (status: number): JobStatusName {
  return STATUS_NAMES[status] ?? 'None'
}

/** A job as the escrow stores it (the fields a DApp needs). */
export interface EscrowJob {
  jobId: string
  status: JobStatusName
  creator: string
  /** Fee in wei. */
  fee: bigint
  /** Unix seconds. */
  deadline: number
  jobRoot: string
  /** ZeroHash until results are submitted. */
  resultRoot: string
  /** How often submitted results were rejected (the job went back to Open each time). */
  rejections: number
  /** Block of the current submission, 0 without one. */
  submitBlock: number
  k: number
  /** MicroJobs sampled per MacroJob by each verification round (the verification level). */
  samples: number
  macroJobs: number
  microJobsPerMacro: number
}

/** `JobEscrow.CreateJobParams`. */
export interface CreateJobParams {
  specCid: string
  nonce: bigint
  jobRoot: string
  seed: bigint
  macroJobs: number
  microJobsPerMacro: number
  minVramGb: number
  gpuModel: string
  modelId: string
  identicalHardware: boolean
  k: number
  samples: number
  deadline: number
  secondsPerMicroJob: number
}

/** The bytes32 id of a GPU model or model name on chain: keccak256 of its UTF-8 name; ZeroHash for none ("Any"). */
export function labelId (name: string | undefined): string {
  return name === undefined || name === '' ? ZeroHash : keccakText(name)
}

/** The `createJob` arguments of a spec. */
export function createJobParams (spec: JobSpec, specCid: string, nonce: bigint, jobRoot: string, samples = 1): CreateJobParams {
  return {
    specCid,
    nonce,
    jobRoot,
    seed: spec.seed,
    macroJobs: spec.slicing.macroJobs,
    microJobsPerMacro: spec.slicing.microJobsPerMacro,
    minVramGb: Math.ceil(spec.requirements.minVramGb),
    gpuModel: labelId(spec.requirements.gpuModel),
    modelId: labelId(spec.requirements.modelId),
    identicalHardware: false,
    k: spec.verifiers,
    samples,
    deadline: Math.ceil(spec.deadline / 1000),
    secondsPerMicroJob: Math.max(1, Math.ceil(spec.estimate.secondsPerMicroJob))
  }
}

/** Options of every escrow call. */
export interface CallOptions {
  signal?: AbortSignal
}

/** Options of escrow transactions. */
export interface TxOptions extends CallOptions {
  /** How long to wait for the transaction to be mined (ms). */
  timeoutMs: number
  confirmations: number
}

/** A mined escrow transaction. */
export interface Mined {
  txHash: string
  blockNumber: number
  receipt: TransactionReceipt
}

/** Thin typed access to `JobEscrow`; every failure is a ContractRevertError or ChainError. */
export interface Escrow {
  readonly address: string
  readonly contract: JobEscrowContract
  job(jobId: string, options?: CallOptions): Promise<EscrowJob>
  status(jobId: string, options?: CallOptions): Promise<JobStatusName>
  /** Creates and funds a job; `taskValue` is the escrow's (its `JobCreated` event), in wei per second. */
  createJob(params: CreateJobParams, fee: bigint, options: TxOptions): Promise<Mined & { jobId: string, taskValue: bigint }>
  /** The network's pricing parameters (`JobEscrow.pricing()`), in ms: every task value comes from them. */
  pricing(options?: CallOptions): Promise<PricingParams>
  refund(jobId: string, options: TxOptions): Promise<Mined>
  /** The manifest CID of the latest `ResultsSubmitted` of the job with this resultRoot (scanned from `fromBlock`), if any. */
  manifestCid(jobId: string, resultRoot: string, fromBlock: number, options?: CallOptions): Promise<string | undefined>
  /** The spec CID and block of the job's `JobCreated` event (scanned from `fromBlock`). */
  created(jobId: string, fromBlock: number, options?: CallOptions): Promise<{ specCid: string, blockNumber: number } | undefined>
  /** The block of the job's `JobReleased` event at or after `fromBlock`, if any. */
  releasedAt(jobId: string, fromBlock: number, options?: CallOptions): Promise<number | undefined>
  /** Wallets of the job's slashed culprits in round order (one per `JobRejected` event from `fromBlock`). */
  rejectedSubmitters(jobId: string, fromBlock: number, options?: CallOptions): Promise<string[]>
  /** The address that registered a PeerId in the NodeRegistry, or undefined. */
  peerAddress(peerId: string, options?: CallOptions): Promise<string | undefined>
  /** Unix seconds of the latest block (the clock the escrow's deadline is compared with). */
  chainTime(options?: CallOptions): Promise<number>
  blockNumber(options?: CallOptions): Promise<number>
}

export interface EscrowInit {
  address: string
  /** A signer for transactions, or a provider (read only). */
  runner: ContractRunner
  provider: Provider
  /** Per-call timeout (ms). */
  rpcTimeoutMs: number
  /** Called when sending a transaction failed (the signer's local nonce may be ahead). */
  onSendError?: () => void
}

/** Connects to the escrow of a deployment. */
export function createEscrow (init: EscrowInit): Escrow {
  const contract = connect({ jobEscrow: init.address, nodeRegistry: init.address }, init.runner).jobEscrow
  const call = async <T>(what: string, fn: () => Promise<T>, options: CallOptions = {}): Promise<T> => {
    try {
      return await race(fn(), {
        signal: options.signal,
        timeoutMs: init.rpcTimeoutMs,
        what,
        onTimeout: () => new ChainError(`${what} got no answer within ${init.rpcTimeoutMs} ms`)
      })
    } catch (err) {
      throw wrapChainError(err, what)
    }
  }
  const mine = async (what: string, send: () => Promise<{ hash: string, wait(c: number, t: number): Promise<TransactionReceipt | null> }>, options: TxOptions): Promise<Mined> => {
    let tx
    try {
      tx = await call(what, send, options)
    } catch (err) {
      init.onSendError?.()
      throw err
    }
    let receipt: TransactionReceipt | null
    try {
      receipt = await race(tx.wait(options.confirmations, options.timeoutMs), { signal: options.signal, what: `${what} (tx ${tx.hash})` })
    } catch (err) {
      throw wrapChainError(err, `${what} (tx ${tx.hash})`)
    }
    if (receipt === null || receipt.status !== 1) {
      throw new ContractRevertError('', [], `${what} reverted (tx ${tx.hash})`)
    }
    return { txHash: tx.hash, blockNumber: receipt.blockNumber, receipt }
  }

  let registry: Promise<ReturnType<typeof connect>['nodeRegistry']> | undefined
  const job = async (jobId: string, options?: CallOptions): Promise<EscrowJob> => {
    const j = await call(`JobEscrow.jobs(${jobId})`, async () => contract.jobs(jobId), options)
    return {
      jobId: jobId.toLowerCase(),
      status: statusName(Number(j.status)),
      creator: j.creator,
      fee: j.fee,
      deadline: Number(j.deadline),
      jobRoot: j.jobRoot,
      resultRoot: j.resultRoot,
      rejections: Number(j.rejections),
      submitBlock: Number(j.submitBlock),
      k: Number(j.k),
      samples: Number(j.samples),
      macroJobs: Number(j.macroJobs),
      microJobsPerMacro: Number(j.microJobsPerMacro)
    }
  }

  return {
    address: init.address,
    contract,
    job,
    async status (jobId, options) {
      const s = await call(`JobEscrow.statusOf(${jobId})`, async () => contract.statusOf(jobId), options)
      return statusName(Number(s))
    },
    async createJob (params, fee, options) {
      // estimateGas first so a revert surfaces with its decoded custom error before anything is sent
      await call('JobEscrow.createJob', async () => contract.createJob.estimateGas(params, { value: fee }), options)
      const mined = await mine('JobEscrow.createJob', async () => contract.createJob(params, { value: fee }), options)
      let created: { jobId: string, taskValue: bigint } | undefined
      for (const log of mined.receipt.logs) {
        try {
          const parsed = contract.interface.parseLog(log)
          if (parsed?.name === 'JobCreated') created = { jobId: String(parsed.args.jobId).toLowerCase(), taskValue: BigInt(parsed.args.taskValue) }
        } catch { /* another contract's log */ }
      }
      if (created === undefined) throw new ChainError(`JobEscrow.createJob (tx ${mined.txHash}) emitted no JobCreated event`)
      return { ...mined, ...created }
    },
    async pricing (options) {
      const [overheadMs, msPerMicroJob] = await call('JobEscrow.pricing', async () => contract.pricing(), options)
      return { overheadMs: Number(overheadMs), msPerMicroJob: Number(msPerMicroJob) }
    },
    async refund (jobId, options) {
      await call('JobEscrow.refund', async () => contract.refund.estimateGas(jobId), options)
      return mine('JobEscrow.refund', async () => contract.refund(jobId), options)
    },
    async manifestCid (jobId, resultRoot, fromBlock, options) {
      const events = await call('ResultsSubmitted events', async () =>
        contract.queryFilter(contract.filters.ResultsSubmitted(jobId), fromBlock), options)
      for (const e of [...events].reverse()) {
        if (!('args' in e) || String(e.args.resultRoot).toLowerCase() !== resultRoot.toLowerCase()) continue
        const cid = String(e.args.manifestCid)
        return cid === '' ? undefined : cid
      }
      return undefined
    },
    async created (jobId, fromBlock, options) {
      const events = await call('JobCreated events', async () =>
        contract.queryFilter(contract.filters.JobCreated(jobId), fromBlock), options)
      const first = events[0]
      if (first === undefined || !('args' in first)) return undefined
      return { specCid: String(first.args.specCid), blockNumber: first.blockNumber }
    },
    async releasedAt (jobId, fromBlock, options) {
      const events = await call('JobReleased events', async () =>
        contract.queryFilter(contract.filters.JobReleased(jobId), fromBlock), options)
      return events.at(-1)?.blockNumber
    },
    async rejectedSubmitters (jobId, fromBlock, options) {
      const events = await call('JobRejected events', async () =>
        contract.queryFilter(contract.filters.JobRejected(jobId), fromBlock), options)
      return events.flatMap(e => 'args' in e ? [String(e.args.culprit)] : [])
    },
    async peerAddress (peerId, options) {
      registry ??= call('JobEscrow.registry', async () => String(await contract.registry()), options)
        .then(address => connect({ jobEscrow: init.address, nodeRegistry: address }, init.runner).nodeRegistry)
      registry.catch(() => { registry = undefined })
      const reg = await registry
      const owner = await call('NodeRegistry.peerIdOwner', async () => reg.peerIdOwner(keccakText(peerId)), options)
      return /^0x0{40}$/i.test(owner) ? undefined : owner
    },
    async chainTime (options) {
      const block = await call('eth_getBlockByNumber', async () => init.provider.getBlock('latest'), options)
      if (block === null) throw new ChainError('the RPC endpoint returned no latest block')
      return block.timestamp
    },
    async blockNumber (options) {
      return call('eth_blockNumber', async () => init.provider.getBlockNumber(), options)
    }
  }
}

export { JobStatus }
