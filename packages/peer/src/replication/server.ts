import { anySignal, isSettledStatus } from '@jobmesh/contracts'
import { logger } from '@libp2p/logger'
import * as lp from 'it-length-prefixed'
import {
  DEFAULT_MAX_REPLICATION_REQUEST_BYTES, DEFAULT_MAX_REPLICATION_SENDER_BYTES, DEFAULT_REPLICATION_SENDER_WINDOW_MS,
  DEFAULT_REPLICATION_TIMEOUT_MS, MAX_INBOUND_REPLICATION_STREAMS, MAX_MANIFEST_BYTES, MAX_REPLICATION_MESSAGE_BYTES,
  REPLICATION_PROTOCOL
} from './constants.js'
import {
  JobNotOpenError, ReplicaRefusedError, ReplicationProtocolError, UnregisteredSenderError
} from './errors.js'
import { senderBudget } from './sender-budget.js'
import { decodeRequest, encodeMessage } from './wire.js'
import { MAX_SPEC_BYTES, computeJobId, decodeJobSpec } from '../protocol/index.js'
import { decodeManifest, ensureOutputs, peerOwners } from '../settlement/index.js'
import { jobInputs } from '../storage/index.js'
import type { ReplicationAnswer, ReplicationRequest } from './wire.js'
import type { ChainClient } from '@jobmesh/contracts'
import type { ContentStore, JobInputs } from '../storage/index.js'
import type { Stream } from '@libp2p/interface'
import type { Libp2p } from 'libp2p'

const log = logger('jobmesh:replication')

export interface ReplicationServerComponents {
  libp2p: Pick<Libp2p, 'handle' | 'unhandle'>
  store: Pick<ContentStore, 'fetch' | 'pin' | 'addOutput' | 'addRaw'>
  /** Holds a job's inputs here, shared with the processor's (one pin of them at a time); default on `store`. */
  inputs?: Pick<JobInputs, 'hold'>
  /**
   * Without it any well-formed request is served (within the byte budgets); with it the job must exist in the
   * escrow, and an `outputs` request must come from a registered node and name a job that is Open.
   */
  chain?: Pick<ChainClient, 'jobStatus' | 'peerAddress'>
  /** Default `Date.now` (the per-sender window). */
  clock?: () => number
}

export interface ReplicationServerInit {
  /** Bound of serving one request: fetching and pinning everything it names (ms), default 120 000. */
  timeoutMs?: number
  /** Most bytes one `outputs` request may make this peer hold (manifest and the outputs' `size`s), default 1 GiB. */
  maxRequestBytes?: number
  /** Most bytes of `outputs` requests one sender may make this peer hold per `senderWindowMs`, default 4 GiB. */
  maxSenderBytes?: number
  /** The window of `maxSenderBytes` (ms), default 1 h. */
  senderWindowMs?: number
}

/** The running handler of {@link REPLICATION_PROTOCOL}. */
export interface ReplicationServer {
  stop(): Promise<void>
}

/**
 * Serves {@link REPLICATION_PROTOCOL}: on request this peer fetches and pins a job's inputs (spec, code, data) or
 * its manifest and every output the manifest lists (sha256 checked), and answers `ok` once it holds them all. With a
 * chain the job must exist in the escrow (nobody makes a peer store content for a job nobody paid for), the job of an
 * `inputs` request must not be settled (Released or Refunded: nobody will run or verify it), and the spec of an
 * `inputs` request must be the one the jobId commits to. An `outputs` request names a manifest its sender
 * made, so it is bounded before anything is fetched: with a chain its sender must be a registered node (the
 * finalizer is one) and the job must be Open (a finalizer replicates before it submits); and, chain or not, the
 * manifest and the outputs it lists (their `size`s, each fetched with its `size` as the limit) must fit in
 * `maxRequestBytes` and in what is left of its sender's `maxSenderBytes` for the current window (a manifest
 * counted once per window, so a finalizer's retries of the same manifest cost nothing more).
 */
export async function startReplicationServer (components: ReplicationServerComponents,
  init: ReplicationServerInit = {}): Promise<ReplicationServer> {
  const controller = new AbortController()
  const timeoutMs = init.timeoutMs ?? DEFAULT_REPLICATION_TIMEOUT_MS
  const clock = components.clock ?? Date.now
  const chain = components.chain
  const inputs = components.inputs ?? jobInputs({ store: components.store })
  // the registry's owner of each sender, cached (a flood of requests from one unregistered PeerId costs few reads)
  const owners = chain == null ? undefined : peerOwners({ chain, clock })
  const budget = senderBudget({
    maxRequestBytes: init.maxRequestBytes ?? DEFAULT_MAX_REPLICATION_REQUEST_BYTES,
    maxSenderBytes: init.maxSenderBytes ?? DEFAULT_MAX_REPLICATION_SENDER_BYTES,
    windowMs: init.senderWindowMs ?? DEFAULT_REPLICATION_SENDER_WINDOW_MS,
    clock
  })

  const checkJob = async (request: ReplicationRequest, signal: AbortSignal): Promise<void> => {
    if (chain == null) return
    const status = await chain.jobStatus(request.jobId, { signal })
    if (status === 'None') throw new ReplicaRefusedError(`job ${request.jobId} does not exist in the escrow`)
    if (request.kind === 'outputs' && status !== 'Open') {
      throw new JobNotOpenError(`job ${request.jobId} is ${status}: its outputs are replicated only while it is Open`)
    }
    if (request.kind === 'inputs' && isSettledStatus(status)) {
      throw new JobNotOpenError(`job ${request.jobId} is ${status}: its inputs are replicated only while it is Open or being verified`)
    }
  }

  const checkSender = async (sender: string, signal: AbortSignal): Promise<void> => {
    if (owners == null) return
    if (await owners.of(sender, { signal }) == null) throw new UnregisteredSenderError(`${sender} is not a registered node`)
  }

  /**
   * Fetches a manifest within what its sender may make this peer hold, and charges the fetch at once, whatever the
   * bytes turn out to be (a failed fetch: its whole limit, what it may have stored). @throws ReplicationBudgetError
   */
  const fetchManifest = async (sender: string, manifestCid: string, signal: AbortSignal): Promise<Uint8Array> => {
    const limit = Math.min(MAX_MANIFEST_BYTES, budget.manifestLimit(sender, manifestCid))
    try {
      const bytes = await components.store.fetch(`ipfs://${manifestCid}`, { maxBytes: limit, signal })
      budget.chargeManifest(sender, manifestCid, bytes.byteLength)
      return bytes
    } catch (err) {
      budget.chargeManifest(sender, manifestCid, limit)
      throw err
    }
  }

  const serve = async (request: ReplicationRequest, sender: string, signal: AbortSignal): Promise<void> => {
    if (request.kind === 'outputs') await checkSender(sender, signal)
    await checkJob(request, signal)
    if (request.kind === 'inputs') {
      const bytes = await components.store.fetch(`ipfs://${request.specCid}`, { maxBytes: MAX_SPEC_BYTES, signal })
      const spec = decodeJobSpec(bytes)
      if (computeJobId(spec.creator, request.specCid, BigInt(request.nonce)).toLowerCase() !== request.jobId) {
        throw new ReplicaRefusedError(`spec ${request.specCid} and nonce do not give job ${request.jobId}`)
      }
      await inputs.hold({ jobId: request.jobId, specCid: request.specCid, spec }, { signal })
      return
    }
    const manifestBytes = await fetchManifest(sender, request.manifestCid, signal)
    const manifest = decodeManifest(manifestBytes)
    if (manifest.jobId.toLowerCase() !== request.jobId) {
      throw new ReplicaRefusedError(`manifest ${request.manifestCid} is of job ${manifest.jobId}, not ${request.jobId}`)
    }
    budget.chargeOutputs(sender, request.manifestCid, manifestBytes.byteLength, manifest.microJobs)
    // fetch only (no executor): the asking peer holds every output; none larger than the size it was counted at
    await ensureOutputs({ store: components.store }, request.jobId, undefined, manifest.microJobs, { signal, limitToSize: true })
    await components.store.pin(`ipfs://${request.manifestCid}`, { signal })
  }

  const handle = async (stream: Stream, sender: string): Promise<void> => {
    const signal = anySignal([controller.signal], timeoutMs)
    // a peer that opens the stream and never sends its request holds an inbound slot only until the timeout
    const onAbort = (): void => { stream.abort(new ReplicationProtocolError('no request within the timeout')) }
    signal.addEventListener('abort', onAbort, { once: true })
    let answer: ReplicationAnswer
    try {
      const next = await lp.decode(stream, { maxDataLength: MAX_REPLICATION_MESSAGE_BYTES }).next()
      signal.removeEventListener('abort', onAbort)
      if (next.done === true) throw new ReplicationProtocolError('stream ended without a request')
      const request = decodeRequest(next.value.subarray())
      try {
        await serve(request, sender, signal)
        answer = { ok: true }
        log('holding %s of %s', request.kind, request.jobId)
      } catch (err) {
        log('cannot hold %s of %s for %s: %e', request.kind, request.jobId, sender, err)
        answer = signal.aborted && !controller.signal.aborted
          // the request's time ran out while this peer was still fetching: no refusal (its pin of them may go on)
          ? { ok: false, reason: `TimeoutError: still fetching the ${request.kind} of ${request.jobId} when the request's ${timeoutMs / 1000} s ran out`, error: 'TimeoutError' }
          : { ok: false, reason: `${(err as Error).name}: ${(err as Error).message}`, error: (err as Error).name }
      }
      if (!stream.send(lp.encode.single(encodeMessage(answer)))) await stream.onDrain({ signal })
      await stream.close({ signal })
    } catch (err) {
      log('replication stream failed: %e', err)
      stream.abort(err as Error)
    } finally {
      signal.removeEventListener('abort', onAbort)
    }
  }

  await components.libp2p.handle(REPLICATION_PROTOCOL, async (stream, connection) => {
    await handle(stream, connection.remotePeer.toString())
  }, {
    maxInboundStreams: MAX_INBOUND_REPLICATION_STREAMS
  })
  return {
    async stop () {
      controller.abort()
      await components.libp2p.unhandle(REPLICATION_PROTOCOL)
    }
  }
}
