import { coordGuards } from '@jobmesh/peer/coord'
import { createDocStore } from '@jobmesh/peer/crdt'
import { createContentStore } from '@jobmesh/peer/storage'
import { connectedWithin, createNode } from '@jobmesh/peer/node'
import { logger } from '@libp2p/logger'
import { checkClientInit, connectClientChain } from './chain/connection.js'
import {
  DEFAULT_BOOTSTRAP_TIMEOUT_MS, DEFAULT_CONFIRMATIONS, DEFAULT_DOC_TIMEOUT_MS, DEFAULT_DOWNLOAD_CONCURRENCY,
  DEFAULT_FETCH_TIMEOUT_MS, DEFAULT_INPUT_REPLICAS, DEFAULT_POLL_INTERVAL_MS, DEFAULT_REPLICATION_TIMEOUT_MS, DEFAULT_RELEASE_TIMEOUT_MS, DEFAULT_RPC_TIMEOUT_MS,
  DEFAULT_TX_TIMEOUT_MS
} from './constants.js'
import { checkDuration } from './durations.js'
import { ClientStoppedError, InvalidConfigError } from './errors.js'
import { describeJobStory, matchingPeers } from './describe.js'
import { jobDocHolds } from './job-docs.js'
import { loadEscrowJob } from './job-info.js'
import { activeNodes, bondableNodes, listJobs } from './jobs.js'
import { createAnnouncer } from './network/announce.js'
import { watchProgress } from './progress.js'
import { refundJob } from './refund.js'
import { waitForRelease } from './release.js'
import { downloadResults } from './results.js'
import { submitJob } from './submit.js'
import { checkJobId } from './job-id.js'
import type { DeploymentRef } from './chain/connection.js'
import type { EscrowJobState as EscrowJob } from '@jobmesh/contracts'
import type { ClientContext, KnownSpec } from './context.js'
import type { ListedJob } from './jobs.js'
import type { BondableNodes } from '@jobmesh/peer/settlement'
import type { DescribeOptions, PeerMatching } from './describe.js'
import type { ProgressOptions, ProgressUpdate } from './progress.js'
import type { Refund, RefundOptions } from './refund.js'
import type { Release, WaitForReleaseOptions } from './release.js'
import type { MicroJobOutput, ResultsOptions } from './results.js'
import type { SubmitInput } from './spec.js'
import type { SubmitOptions, SubmittedJob } from './submit.js'
import type { DocStore } from '@jobmesh/peer/crdt'
import type { JobmeshNode } from '@jobmesh/peer/node'
import type { JobStory } from '@jobmesh/peer/observe'
import type { Provider, Signer } from 'ethers'

const log = logger('jobmesh:sdk')

/** Options of {@link createJobClient}. */
export interface JobClientInit {
  /** JSON-RPC endpoint; or pass `provider`. */
  rpcUrl?: string
  /** An ethers provider; or pass `rpcUrl`. */
  provider?: Provider
  /** Pays for jobs and is their creator: an ethers Signer or a 0x private key. */
  signer: Signer | string
  /** Where the contracts live (a `Deployment` of `@jobmesh/contracts` fits). */
  deployment: DeploymentRef
  /** Multiaddrs (with `/p2p/<peerId>`) of jobmesh peers to connect to. */
  bootstrap?: string[]
  /** Where the client's node keeps its key, blocks and CRDT state; in memory without it. */
  dataDir?: string
  /** Listen addresses of the client's node (default loopback, OS-chosen ports). */
  listen?: string[]
  /** Per JSON-RPC call (ms). Default {@link DEFAULT_RPC_TIMEOUT_MS}. */
  rpcTimeoutMs?: number
  /** Mining of a transaction (ms). Default {@link DEFAULT_TX_TIMEOUT_MS}. */
  txTimeoutMs?: number
  /** Confirmations of transactions. Default {@link DEFAULT_CONFIRMATIONS}. */
  confirmations?: number
  /** Opening a job doc and catching up with peers (ms). Default {@link DEFAULT_DOC_TIMEOUT_MS}. */
  docTimeoutMs?: number
  /** Fetching one object by CID (ms). Default {@link DEFAULT_FETCH_TIMEOUT_MS}. */
  fetchTimeoutMs?: number
  /** `waitForRelease` poll interval (ms). Default {@link DEFAULT_POLL_INTERVAL_MS}. */
  pollIntervalMs?: number
  /** `waitForRelease` timeout (ms). Default {@link DEFAULT_RELEASE_TIMEOUT_MS}. */
  releaseTimeoutMs?: number
  /** Waiting for the first bootstrap connection (ms); the client starts anyway. Default {@link DEFAULT_BOOTSTRAP_TIMEOUT_MS}. */
  bootstrapTimeoutMs?: number
  /** Outputs fetched in parallel by `results`. Default {@link DEFAULT_DOWNLOAD_CONCURRENCY}. */
  downloadConcurrency?: number
  /** Peers that must confirm they hold a job's spec, code and data before `submit` returns. Default {@link DEFAULT_INPUT_REPLICAS}. */
  inputReplicas?: number
  /** How long `submit` waits for them (ms). Default {@link DEFAULT_REPLICATION_TIMEOUT_MS}. */
  replicationTimeoutMs?: number
  signal?: AbortSignal
}

/** A DApp's handle on jobmesh: its own small node (no processing) and the escrow. */
export interface JobClient {
  /** The client's address (the creator of its jobs). */
  readonly address: string
  /** The chain id it talks to. */
  readonly chainId: number
  /** The client's jobmesh node (helia holds the uploads). */
  readonly node: JobmeshNode
  readonly docs: DocStore
  /**
   * Validates the job, uploads code and data (bytes or files) to the client's IPFS node, stores the spec,
   * computes the jobId and jobRoot, creates and funds the job in the escrow, announces it to the network and has
   * peers hold (fetch and pin) its spec, code and data, so the client may go offline once it returns.
   * Progress stages: `uploading`, `creating` (the jobId is known; the funding transaction is not sent yet),
   * `announcing`, `replicating`, `done`.
   *
   * With `requirePeer` it first makes sure a connected peer can hold the inputs (NoPeerConnectedError otherwise).
   *
   * @throws InvalidJobError (every bad field), NoPeerConnectedError, UploadError, ChainRevertError and the other chain errors, FundingUnknownError (the funding transaction was sent, its outcome is unknown: check `status` before a new submit), AnnounceError, AbortError
   */
  submit(input: SubmitInput, options?: SubmitOptions): Promise<SubmittedJob>
  /** `{ done, total }` from the job's CRDT doc on every change; ends when `done === total`. */
  progress(jobId: string, options?: ProgressOptions): AsyncIterable<ProgressUpdate>
  /**
   * Polls the escrow until the job is Released.
   *
   * @throws ReleaseTimeoutError, JobRejectedError (rejected and past the deadline), JobRefundedError,
   * DeadlinePassedError (never submitted, past the deadline), JobNotFoundError, the chain errors, AbortError
   */
  waitForRelease(jobId: string, options?: WaitForReleaseOptions): Promise<Release>
  /**
   * Every MicroJob's output in MicroJob order, each checked against the sha256 of its result record, and the set
   * against the escrow's resultRoot once results are submitted.
   *
   * @throws ResultNotFoundError, ResultHashMismatchError, ResultRootMismatchError, DownloadError, the chain errors, AbortError
   */
  results(jobId: string, options?: ResultsOptions): Promise<MicroJobOutput[]>
  /**
   * Refunds the fee after the deadline if the job was never released. A verification round still open past the
   * deadline (its peers gone) is settled first when anyone may settle it (all verifiers revealed, or its reveal window
   * over): progress stages `settling`, `settled`, then `refunding`; a settle someone else sent first is taken as done.
   * A refusal is a ChainRevertError whose message says why in plain words: the job's status (`WrongStatus`; also a
   * round that settled as Released), its deadline in ISO UTC and the time left (`DeadlineNotReached`), a verification
   * under way (`VerificationUnderway`, with the block after which its round can be settled).
   *
   * @throws ChainRevertError and the other chain errors, JobNotFoundError, JobRefundedError
   */
  refund(jobId: string, options?: RefundOptions): Promise<Refund>
  /** Jobs of this wallet (or `creator`), oldest first, from `JobCreated` events. @throws the chain errors */
  list(options?: { creator?: string, signal?: AbortSignal }): Promise<ListedJob[]>
  /** Active nodes in the registry: a job with k verifiers needs k + 1 (its submitter cannot verify). @throws the chain errors */
  activeNodes(options?: { signal?: AbortSignal }): Promise<number>
  /**
   * Which known nodes (by their profiles) could lock the bond of a job paying `fee`: a peer works only on jobs whose
   * bond (`fee x bondBps`) its free stake covers, so with none the job is never processed. @throws the chain errors
   */
  bondableNodes(fee: bigint, options?: { signal?: AbortSignal }): Promise<BondableNodes>
  /** The escrow's record of the job. @throws JobNotFoundError and the chain errors */
  status(jobId: string, options?: { signal?: AbortSignal }): Promise<EscrowJob>
  /**
   * The chain's clock in seconds (its latest block's timestamp): what the escrow compares a job's `deadline` with,
   * so an Open job whose deadline is below it can no longer be released, only refunded. @throws the chain errors
   */
  chainTime(options?: { signal?: AbortSignal }): Promise<number>
  /**
   * The job's story: created, announced, how many peers match its requirements and why the others do not (VRAM,
   * GPU model, paused, exiting or kicked out of the registry, unregistered), progress, finalizer, verifiers and their phase, and in plain words what it waits for now.
   *
   * @throws JobNotFoundError (the escrow has no such job), the chain errors, AbortError
   */
  describe(jobId: string, options?: DescribeOptions): Promise<JobStory>
  /**
   * Which peers this client knows can take a job needing `requirements` (VRAM, GPU model; paused, exiting, kicked-out
   * and unregistered peers cannot), and why the others cannot: `describe`'s matching, before a job is submitted. A job needs one to
   * run it and k + 1 to be verified (its verifiers are drawn among matching nodes besides its submitter).
   */
  matchingPeers(requirements: { minVramGb?: number, gpuModel?: string }, options?: DescribeOptions): Promise<PeerMatching>
  /** Stops the node and closes the provider it created. Idempotent. */
  stop(): Promise<void>
}

async function waitForBootstrap (node: JobmeshNode, count: number, timeoutMs: number, signal?: AbortSignal): Promise<void> {
  if (count === 0) return
  if (!(await connectedWithin(node, timeoutMs, signal))) log('no bootstrap peer connected within %d ms; going on', timeoutMs)
}

/**
 * Creates a DApp client: connects to the chain (RpcUnreachableError when the RPC endpoint does not answer), starts a jobmesh node
 * with a CRDT doc store (no processing) connected to `bootstrap`.
 *
 * @example
 * ```ts
 * const client = await createJobClient({ rpcUrl, signer: privateKey, deployment, bootstrap: ['/ip4/.../p2p/12D3...'] })
 * const job = await client.submit({
 *   code: 'mandelbrot.wasm', data: 'tiles.bin', blockSize: 1024,
 *   slicing: { macroJobs: 4, microJobsPerMacro: 8, blocksPerMicro: 2 }, price: 10n ** 16n
 * }, { onProgress: p => console.log(p.stage) })
 * for await (const { done, total } of client.progress(job.jobId)) console.log(`${done}/${total}`)
 * await client.waitForRelease(job.jobId)
 * const outputs = await client.results(job.jobId)
 * await client.stop()
 * ```
 */
export async function createJobClient (init: JobClientInit): Promise<JobClient> {
  checkClientInit(init)
  if (typeof (Promise as { withResolvers?: unknown }).withResolvers !== 'function') {
    // libp2p and helia use it; a Node without it (20) crashed in their shutdown instead of refusing
    throw new InvalidConfigError(`this Node (${process.version}) has no Promise.withResolvers, which libp2p and helia need: import '@jobmesh/peer/polyfill' before the SDK, or use Node 22 or later`)
  }
  if (init.bootstrap !== undefined && !Array.isArray(init.bootstrap)) {
    throw new InvalidConfigError('bootstrap must be an array of multiaddrs, e.g. [\'/ip4/127.0.0.1/tcp/4001/p2p/12D3KooW...\']')
  }
  const settings = {
    rpcTimeoutMs: init.rpcTimeoutMs ?? DEFAULT_RPC_TIMEOUT_MS,
    txTimeoutMs: init.txTimeoutMs ?? DEFAULT_TX_TIMEOUT_MS,
    confirmations: init.confirmations ?? DEFAULT_CONFIRMATIONS,
    docTimeoutMs: init.docTimeoutMs ?? DEFAULT_DOC_TIMEOUT_MS,
    fetchTimeoutMs: init.fetchTimeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS,
    pollIntervalMs: checkDuration('pollIntervalMs', init.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS),
    releaseTimeoutMs: checkDuration('releaseTimeoutMs', init.releaseTimeoutMs ?? DEFAULT_RELEASE_TIMEOUT_MS),
    downloadConcurrency: init.downloadConcurrency ?? DEFAULT_DOWNLOAD_CONCURRENCY,
    inputReplicas: init.inputReplicas ?? DEFAULT_INPUT_REPLICAS,
    replicationTimeoutMs: init.replicationTimeoutMs ?? DEFAULT_REPLICATION_TIMEOUT_MS
  }
  const chain = await connectClientChain(init)
  let node: JobmeshNode | undefined
  let docs: DocStore | undefined
  try {
    const bootstrap = init.bootstrap ?? []
    node = await createNode({
      role: 'client',
      dataDir: init.dataDir,
      bootstrap,
      ...(init.listen === undefined ? {} : { listen: init.listen })
    })
    docs = createDocStore(node, { guards: coordGuards() })
    await waitForBootstrap(node, bootstrap.length, init.bootstrapTimeoutMs ?? DEFAULT_BOOTSTRAP_TIMEOUT_MS, init.signal)
  } catch (err) {
    await docs?.stop().catch(() => {})
    await node?.stop().catch(() => {})
    chain.close()
    throw err
  }
  const controller = new AbortController()
  const ctx: ClientContext = {
    node,
    docs,
    jobDocs: jobDocHolds(docs),
    store: createContentStore({ helia: node.helia }, { fetchTimeoutMs: settings.fetchTimeoutMs }),
    chain,
    deployment: init.deployment,
    announcer: createAnnouncer(node, docs),
    fromBlock: init.deployment.blockNumber ?? 0,
    specs: new Map<string, KnownSpec>(),
    settings,
    stopped: controller.signal
  }
  let stopping: Promise<void> | undefined
  const live = (): void => {
    if (controller.signal.aborted) throw new ClientStoppedError('the job client was stopped')
  }
  return {
    address: chain.address,
    chainId: chain.chainId,
    node,
    docs,
    async submit (input, options) {
      live()
      return submitJob(ctx, input, options)
    },
    progress (jobId, options) {
      live()
      return watchProgress(ctx, checkJobId(jobId), options)
    },
    async waitForRelease (jobId, options) {
      live()
      return waitForRelease(ctx, checkJobId(jobId), options)
    },
    async results (jobId, options) {
      live()
      return downloadResults(ctx, checkJobId(jobId), options)
    },
    async refund (jobId, options = {}) {
      live()
      return await refundJob(ctx, checkJobId(jobId), options)
    },
    async list (options) {
      live()
      return await listJobs(ctx, options)
    },
    async activeNodes (options) {
      live()
      return await activeNodes(ctx, options)
    },
    async bondableNodes (fee, options) {
      live()
      return await bondableNodes(ctx, fee, options)
    },
    async status (jobId, options = {}) {
      live()
      return loadEscrowJob(ctx, checkJobId(jobId), options.signal)
    },
    async chainTime (options = {}) {
      live()
      return await ctx.chain.client.chainTime({ signal: options.signal })
    },
    async describe (jobId, options) {
      live()
      return describeJobStory(ctx, checkJobId(jobId), options)
    },
    async matchingPeers (requirements, options) {
      live()
      return matchingPeers(ctx, requirements, options)
    },
    async stop () {
      stopping ??= (async () => {
        controller.abort(new ClientStoppedError('the job client was stopped'))
        try {
          await ctx.docs.stop()
        } finally {
          await ctx.node.stop()
          chain.close()
        }
      })()
      return stopping
    }
  }
}
