import { computeJobId, encodeJobSpec, jobTree, microJobCount, sliceJob, taskValue } from '@jobmesh/peer/protocol'
import { holdCheck, provenHolders, replicate } from '@jobmesh/peer/replication'
import type { HoldCheck } from '@jobmesh/peer/replication'
import { logger } from '@libp2p/logger'
import { requireSigning } from './chain/connection.js'
import { createJobParams } from './job-params.js'
import { samplesFor } from './verification.js'
import { checkCode } from './code-check.js'
import { putRaw, resolveContent } from './content.js'
import { EscrowMismatchError, InputUnavailableError, InvalidJobError, NoPeerConnectedError } from './errors.js'
import { fundJob, fundsError } from './funding.js'
import { DEFAULT_INPUT_RETRY_INTERVAL_MS, DEFAULT_PEER_WAIT_MS, DETACHED_INPUT_HOLDERS, DETACHED_MORE_HOLDERS_WAIT_MS } from './constants.js'
import { waitForHolderPeer } from './network/holders.js'
import { requireActiveNodes } from './network/active-nodes.js'
import { buildSpec, deadlineIssue, draftSpec, localSize, randomUint256 } from './spec.js'
import type { ClientContext } from './context.js'
import type { ContentInput, ContentRef } from './content.js'
import type { SubmitInput } from './spec.js'
import { progressReporter } from './progress-report.js'
import type { JobSpec, MicroJobDescriptor } from '@jobmesh/peer/protocol'

/** The content store's errors for content nobody served in time (or a path not in it). */
/** What a peer's fetch of an input the client did not upload would end with too: the job would never start. */
const UNSERVED = new Set(['ContentTimeoutError', 'ContentNotFoundError', 'ContentFetchError', 'ForbiddenUriError'])

const log = logger('jobmesh:sdk')

/** Stages of a submission, in order. */
export type SubmitStage = 'uploading' | 'creating' | 'announcing' | 'replicating' | 'done'

/** A progress report of `submit`. */
export interface SubmitProgress {
  stage: SubmitStage
  /** Set once known: from `creating` on, before the funding transaction is sent. */
  jobId?: string
  specCid?: string
  txHash?: string
}

export interface SubmitOptions {
  onProgress?(progress: SubmitProgress): void
  /**
   * The caller goes offline once `submit` returns (`jobmesh-dapp submit --detach`): until a peer holds the inputs
   * nobody else can serve them, so `submit` asks again every second (the peers that did not confirm, and those that
   * connect meanwhile) until two registered peers hold them ({@link DETACHED_INPUT_HOLDERS}; or `inputReplicas`, and
   * then at most 30 s more for the second: {@link DETACHED_MORE_HOLDERS_WAIT_MS}) or the replication time is up. Without it the
   * connected peers are asked once: the client stays online and serves the inputs itself.
   */
  detached?: boolean
  /**
   * Refuse the job (NoPeerConnectedError) before anything is uploaded or paid unless a connected peer can hold its
   * inputs (speaks `/jobmesh/replicate/1.0.0`), waiting up to `peerWaitMs` for one to identify as such; and refuse it
   * (InputUnavailableError) before it is paid when an `ipfs://` or `https://` input it did not upload (code, data,
   * model) cannot be fetched from the network within `peerWaitMs` each (its first byte is read: the blocks it needs,
   * not the whole DAG), or is an `https://` URI the peers refuse (a host on this machine or a private network); and
   * refuse it (InvalidJobError on `blockCount`) when such a data input ends before the job's last block (one byte at
   * that block's offset is read): its last MicroJobs would get no input on any peer. Without it a job is funded with no peer in
   * sight (the client may serve the inputs to peers that connect later), or naming content nobody serves.
   * `jobmesh-dapp submit` sets it unless `--force`.
   */
  requirePeer?: boolean
  /** With `requirePeer`: how long to wait (ms) for such a peer. Default {@link DEFAULT_PEER_WAIT_MS}. */
  peerWaitMs?: number
  /**
   * Called once the job is validated, the wallet can pay and (with `requirePeer`) a peer can hold its inputs, before
   * anything is uploaded or paid: what it throws ends the submission there (`jobmesh-dapp submit` refuses a job the
   * network cannot finish with it).
   */
  beforeUpload?(options: { signal?: AbortSignal }): Promise<void>
  /**
   * Refuse the job (JobCannotFinishError) before anything is uploaded or paid when fewer than k + 1 nodes are active on
   * chain (registered, not paused, exiting nor kicked out): the escrow draws its k verifiers among them besides its
   * submitter, so funded it would wait for its deadline and only then be refunded. Without it such a job is funded
   * (nodes that register later can still take it). `jobmesh-dapp submit` sets it unless `--force`.
   */
  requireActiveNodes?: boolean
  /** How long to wait (ms) for peers to hold the inputs; default the client's `replicationTimeoutMs`. */
  replicationTimeoutMs?: number
  signal?: AbortSignal
}

/** A created, funded and announced job. */
export interface SubmittedJob {
  jobId: string
  /** CID of the canonical spec bytes (a raw block, pinned by the client). */
  specCid: string
  /** Hash of the `createJob` transaction. */
  txHash: string
  /** Block the job was created in. */
  blockNumber: number
  /** The MicroJobs, in global order (`macroIndex * microJobsPerMacro + index`). */
  microJobs: MicroJobDescriptor[]
  /** Merkle root over the MicroJob descriptors, as stored on chain. */
  jobRoot: string
  nonce: bigint
  spec: JobSpec
  /**
   * PeerIds of the peers that confirmed they hold the spec, code and data (fetched and pinned). Once one does, the
   * client may go offline; empty means only this client holds them.
   */
  holders: string[]
  /**
   * Peers that answered they will not hold the inputs, with their reason (`error`: the peer's error name, e.g.
   * `ContentTooLargeError` for data larger than the job declares, `JobNotOpenError`); peers that confirmed are not here.
   */
  refusals: InputRefusal[]
  /**
   * Registered peers that said they hold the inputs and did not prove it (docs/settlement.md, Availability 1, Proof of
   * holding): `error` is `HoldProofFailedError` (a wrong digest, or no answer in time) or the challenge's error. They
   * are not among `holders`.
   */
  unproven: InputRefusal[]
  /** MicroJobs of each MacroJob every verification round re-runs (the verification level). */
  samples: number
  /**
   * The job's task value in wei per second: `price * 1000 / (overheadMs + microJobs * msPerMicroJob)` from the
   * network's pricing parameters (`taskValue`); the escrow computed the same integer.
   */
  taskValue: bigint
}

/** A peer's answer that it will not hold a job's inputs. */
export interface InputRefusal {
  peer: string
  reason: string
  /** The peer's error name, when it gave one. */
  error?: string
}

/**
 * Whether a peer's failed answer refuses the inputs: not when its own time for the request ran out, or it stopped,
 * while it was still fetching them (`TimeoutError`, `AbortError`: a 256 MiB input once read "refused by 3 peers"
 * whose pins went on and held it).
 */
export function isRefusal (error: string | undefined): error is string {
  return error !== undefined && error !== 'TimeoutError' && error !== 'AbortError'
}

function placeholder (input: ContentInput): string {
  if (typeof input === 'object' && !(input instanceof Uint8Array)) return input.uri
  if (typeof input === 'string' && (input.startsWith('ipfs://') || input.startsWith('https://'))) return input
  return 'ipfs://pending-upload'
}

/**
 * Validates, uploads, creates and announces a job (see {@link JobClient.submit}).
 */
export async function submitJob (ctx: ClientContext, input: SubmitInput, options: SubmitOptions = {}): Promise<SubmittedJob> {
  const signal = options.signal
  const report = progressReporter<SubmitProgress>(options.onProgress)
  signal?.throwIfAborted()
  // an untyped caller (JavaScript) may pass anything
  if (typeof input !== 'object' || input === null) {
    throw new InvalidJobError([{ path: '', message: 'a job is an object: { code, data, blockSize, slicing, price, ... }' }])
  }
  const creator = ctx.chain.address
  requireSigning(ctx.chain, 'submitting a job')
  const sizes = {
    data: await localSize(input.data, 'data'),
    code: await localSize(input.code, 'code'),
    model: input.model === undefined ? undefined : await localSize(input.model, 'model')
  }
  // what the deployed escrow accepts (k, the furthest deadline): a job it would refuse is refused here, before the upload.
  // The deadline is read against the chain's clock, the one the escrow and the peers go by, not this machine's.
  const [limits, chainTime] = await Promise.all([ctx.chain.client.jobLimits({ signal }), ctx.chain.client.chainTime({ signal })])
  const draft = draftSpec(input, creator, sizes, chainTime * 1000, { ...limits, chainTime })
  // validate everything before anything is uploaded or paid
  const checked = buildSpec(draft, placeholder(input.code), placeholder(input.data), input.model === undefined ? undefined : placeholder(input.model))
  await checkCode(input.code)
  // a wallet that cannot pay the fee is refused before anything is uploaded
  const balance = await ctx.chain.client.balance(creator, { signal })
  if (balance < checked.price) throw fundsError(creator, balance, checked.price, 'nothing was uploaded or paid')
  const peerWaitMs = options.peerWaitMs ?? DEFAULT_PEER_WAIT_MS
  if (options.requirePeer === true) await requirePeer(ctx, peerWaitMs, signal)
  // inputs named by a URI are read, not uploaded: one nobody serves (or the peers refuse to read), or data that ends
  // before the job's last block, is refused before any upload
  const named = async (value: ContentInput | undefined, size: number | undefined, what: string): Promise<ContentRef | undefined> =>
    value === undefined || size !== undefined ? undefined : await resolveContent(ctx.store, value, what, { signal })
  const namedData = await named(input.data, sizes.data, 'data')
  const namedCode = await named(input.code, sizes.code, 'code')
  const namedModel = await named(input.model, sizes.model, 'model')
  if (options.requirePeer === true) {
    await requireServed(ctx, { code: namedCode, data: namedData, model: namedModel }, peerWaitMs, signal)
    if (namedData !== undefined) await requireBlocks(ctx, namedData, checked, peerWaitMs, signal)
  }

  if (options.requireActiveNodes === true) await requireActiveNodes(ctx, checked.verifiers, { signal })
  await options.beforeUpload?.({ signal })
  report({ stage: 'uploading' })
  const code = namedCode ?? await resolveContent(ctx.store, input.code, 'code', { signal })
  const data = namedData ?? await resolveContent(ctx.store, input.data, 'data', { signal })
  const model = namedModel ?? (input.model === undefined ? undefined : await resolveContent(ctx.store, input.model, 'model', { signal }))
  const spec = buildSpec(draft, code.uri, data.uri, model?.uri)
  const specCid = await putRaw(ctx.store, encodeJobSpec(spec), 'the job spec', { signal })

  const nonce = input.nonce ?? randomUint256()
  const jobId = computeJobId(spec.creator, specCid, nonce)
  const slicing = sliceJob(spec, jobId)
  const jobRoot = jobTree(slicing.microJobs).root

  // checked again: an upload of minutes may have brought the deadline within the peers' margin
  const late = deadlineIssue(spec.deadline, await ctx.chain.client.chainTime({ signal }) * 1000)
  if (late !== undefined) throw new InvalidJobError([{ ...late, message: `${late.message} (after the upload; nothing was paid)` }])
  report({ stage: 'creating', jobId, specCid })
  const pricing = await ctx.chain.client.pricing({ signal })
  const value = taskValue(spec.price, microJobCount(spec), pricing)
  const samples = samplesFor(input.verification, spec.slicing.microJobsPerMacro)
  // a funding whose outcome was lost is looked up on chain: found, the submission goes on as if createJob had returned
  const created = await fundJob(ctx, { spec, jobId, params: createJobParams(spec, specCid, nonce, jobRoot, samples), signal })
  if (created.jobId !== jobId) {
    throw new EscrowMismatchError(`the escrow created job ${created.jobId}, the protocol core computes ${jobId}`)
  }
  if (created.taskValue !== value) {
    throw new EscrowMismatchError(`the escrow values job ${jobId} at ${created.taskValue} wei/s, the protocol core at ${value}`)
  }
  ctx.specs.set(jobId, { spec, specCid })
  log('created %s in block %d (tx %s)', jobId, created.blockNumber, created.hash)

  report({ stage: 'announcing', jobId, specCid, txHash: created.hash })
  await ctx.announcer.announce(spec, jobId, specCid, pricing, { signal })
  // availability: peers fetch and pin the inputs, so the job does not depend on this client staying online
  report({ stage: 'replicating', jobId, specCid, txHash: created.hash })
  const want = ctx.settings.inputReplicas
  // each peer's latest refusal (a detached submit asks a peer again every second)
  const refusals = new Map<string, InputRefusal>()
  const unproven = new Map<string, InputRefusal>()
  const check = holdCheck(ctx.node, [specCid, ...[code, data, model].flatMap(c => c?.uploaded === true ? [c.uri.slice('ipfs://'.length)] : [])])
  const proves: HoldCheck = async (peer, options) => {
    await check(peer, options).catch((err: Error) => {
      if (!options.signal.aborted) unproven.set(peer, { peer, reason: `${err.name}: ${err.message}`, error: err.name })
      throw err
    })
  }
  const holders = await replicate({ libp2p: ctx.node.libp2p }, { kind: 'inputs', jobId, specCid, nonce: nonce.toString() }, {
    onFailed: (peer, reason, error) => { if (isRefusal(error)) refusals.set(peer, { peer, reason, error }) },
    enough: options.detached === true ? detachedEnough(want) : held => held.length >= want,
    // only a registered node's "held" counts (one that is not could let a detached client leave while nobody has the
    // inputs), not one that is leaving (exiting, kicked out: gone before the job may be), and only once it proved it
    // over blocks of the uploads this client withholds meanwhile (a registered liar cannot fetch them on demand)
    counts: provenHolders(proves, async (peer, options) => await stayingNode(ctx, peer, options)),
    timeoutMs: options.replicationTimeoutMs ?? ctx.settings.replicationTimeoutMs,
    ...(options.detached === true ? { retryIntervalMs: DEFAULT_INPUT_RETRY_INTERVAL_MS } : {}),
    signal
  })
  if (holders.length < want) log('%s: inputs held by %d peers (wanted %d)', jobId, holders.length, want)
  report({ stage: 'done', jobId, specCid, txHash: created.hash })
  return {
    jobId,
    specCid,
    txHash: created.hash,
    blockNumber: created.blockNumber,
    microJobs: slicing.microJobs,
    jobRoot,
    nonce,
    spec,
    holders,
    refusals: [...refusals.values()].filter(r => !holders.includes(r.peer)),
    unproven: [...unproven.values()],
    samples,
    taskValue: value
  }
}

/**
 * Throws InvalidJobError (on `blockCount`) when a data input this client did not upload (`ipfs://`, `https://`; the
 * block count is the caller's, not counted from the content) ends before the job's last block: one byte is read at
 * that block's offset, the way the peers read a MicroJob's blocks (a range past the end gives none). Funded, such a
 * job's last MicroJobs would get no input on every peer (a failed job, or outputs of nothing), so nothing is paid. A
 * last block nobody serves in time is left to the peers (an input served in part passes, as in {@link requireServed}).
 */
async function requireBlocks (ctx: ClientContext, data: ContentRef, spec: Pick<JobSpec, 'blockCount' | 'blockSize'>,
  waitMs: number, signal?: AbortSignal): Promise<void> {
  if (data.uploaded || !(data.uri.startsWith('ipfs://') || data.uri.startsWith('https://'))) return
  const last = (spec.blockCount - 1) * spec.blockSize
  let byte: Uint8Array
  try {
    byte = await ctx.store.fetch(data.uri, { offset: last, length: 1, timeoutMs: waitMs, signal, fromNetwork: true })
  } catch (err) {
    if (signal?.aborted === true || !UNSERVED.has((err as Error).name)) throw err
    return
  }
  if (byte.byteLength > 0) return
  throw new InvalidJobError([{
    path: 'blockCount',
    message: `the data ${data.uri} ends before block ${spec.blockCount} of ${spec.blockSize} bytes (it holds at most ${last} bytes, ` +
      `fewer than ${spec.blockCount} blocks): its last MicroJobs would get no input on any peer; nothing was paid`
  }])
}

/**
 * When a detached client has heard enough: {@link DETACHED_INPUT_HOLDERS} registered holders (at least `want`), or `want`
 * of them and {@link DETACHED_MORE_HOLDERS_WAIT_MS} since the `want`-th confirmed (asked at every answer and retry round).
 */
function detachedEnough (want: number): (held: readonly string[]) => boolean {
  let wantSince: number | undefined
  return held => {
    if (held.length >= Math.max(want, DETACHED_INPUT_HOLDERS)) return true
    if (held.length < want) return false
    wantSince ??= Date.now()
    return Date.now() - wantSince >= DETACHED_MORE_HOLDERS_WAIT_MS
  }
}

/** Whether `peer` is a registered node that is not leaving the network (exiting or kicked out). */
async function stayingNode (ctx: ClientContext, peer: string, options?: { signal?: AbortSignal }): Promise<boolean> {
  const address = await ctx.chain.client.peerAddress(peer, options)
  if (address == null) return false
  const node = await ctx.chain.client.nodeInfo(address, options)
  return node.registered && !node.exiting && !node.kickedOut
}

/** Throws NoPeerConnectedError unless a connected peer can hold the inputs (see {@link SubmitOptions.requirePeer}). */
async function requirePeer (ctx: ClientContext, waitMs: number, signal?: AbortSignal): Promise<void> {
  const { connected, holders } = await waitForHolderPeer(ctx.node, waitMs, signal)
  if (holders.length > 0) return
  const why = connected === 0
    ? 'no peer is connected'
    : `${connected} ${connected === 1 ? 'peer is' : 'peers are'} connected but none is a jobmesh peer that holds job inputs (within ${waitMs} ms)`
  throw new NoPeerConnectedError(`no peer can hold this job's code and data: ${why}. Funded, the job would wait for its deadline ` +
    'with nobody to run it, so nothing was uploaded or paid; check that peers run and are reachable (the bootstrap addresses)', connected)
}

/**
 * Throws InputUnavailableError for the first `ipfs://` or `https://` input this client did not upload that nobody
 * serves it within `waitMs`, or that the peers refuse to read (an `https://` host on this machine or a private
 * network: `ForbiddenUriError`) (see {@link SubmitOptions.requirePeer}): the peers would fetch it the same way.
 */
async function requireServed (ctx: ClientContext, refs: Record<string, ContentRef | undefined>, waitMs: number, signal?: AbortSignal): Promise<void> {
  for (const [what, ref] of Object.entries(refs)) {
    if (ref === undefined || ref.uploaded || !(ref.uri.startsWith('ipfs://') || ref.uri.startsWith('https://'))) continue
    try {
      // by the peers' rule (`fromNetwork`): an https:// input on this machine or a private network is one they refuse
      await ctx.store.fetch(ref.uri, { offset: 0, length: 1, timeoutMs: waitMs, signal, fromNetwork: true })
    } catch (err) {
      if (signal?.aborted === true || !UNSERVED.has((err as Error).name)) throw err
      throw new InputUnavailableError(`the job's ${what} ${ref.uri} cannot be fetched: ${(err as Error).message}. Funded, the job would ` +
        'wait for its deadline with no peer able to fetch it, so nothing was paid; make sure a reachable peer or IPFS node holds it',
      ref.uri, { cause: err })
    }
  }
}
