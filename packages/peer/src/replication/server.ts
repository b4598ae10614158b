import { anySignal } from '@jobmesh/contracts'
import { logger } from '@libp2p/logger'
import * as lp from 'it-length-prefixed'
import {
  DEFAULT_REPLICATION_TIMEOUT_MS, MAX_INBOUND_REPLICATION_STREAMS, MAX_MANIFEST_BYTES, MAX_REPLICATION_MESSAGE_BYTES,
  MAX_SPEC_BYTES, REPLICATION_PROTOCOL
} from './constants.js'
import { ReplicaRefusedError, ReplicationProtocolError } from './errors.js'
import { decodeRequest, encodeMessage } from './wire.js'
import { computeJobId, decodeJobSpec } from '../protocol/index.js'
import { decodeManifest, ensureOutputs } from '../settlement/index.js'
import { pinJobContent } from '../storage/index.js'
import type { ReplicationAnswer, ReplicationRequest } from './wire.js'
import type { ChainClient } from '@jobmesh/contracts'
import type { ContentStore } from '../storage/index.js'
import type { Stream } from '@libp2p/interface'
import type { Libp2p } from 'libp2p'

const log = logger('jobmesh:replication')

export interface ReplicationServerComponents {
  libp2p: Pick<Libp2p, 'handle' | 'unhandle'>
  store: Pick<ContentStore, 'fetch' | 'pin' | 'addOutput' | 'addRaw'>
  /** Without it any well-formed request is served; with it the job must exist in the escrow. */
  chain?: Pick<ChainClient, 'jobStatus'>
}

export interface ReplicationServerInit {
  /** Bound of serving one request: fetching and pinning everything it names (ms), default 120 000. */
  timeoutMs?: number
}

/** The running handler of {@link REPLICATION_PROTOCOL}. */
export interface ReplicationServer {
  stop(): Promise<void>
}

/**
 * Serves {@link REPLICATION_PROTOCOL}: on request this peer fetches and pins a job's inputs (spec, code, data) or
 * its manifest and every output the manifest lists (sha256 checked), and answers `ok` once it holds them all. With a
 * chain the job must exist in the escrow (nobody makes a peer store content for a job nobody paid for), and the
 * spec of an `inputs` request must be the one the jobId commits to.
 */
export async function startReplicationServer (components: ReplicationServerComponents,
  init: ReplicationServerInit = {}): Promise<ReplicationServer> {
  const controller = new AbortController()
  const timeoutMs = init.timeoutMs ?? DEFAULT_REPLICATION_TIMEOUT_MS

  const checkJob = async (jobId: string, signal: AbortSignal): Promise<void> => {
    if (components.chain == null) return
    const status = await components.chain.jobStatus(jobId, { signal })
    if (status === 'None') throw new ReplicaRefusedError(`job ${jobId} does not exist in the escrow`)
  }

  const serve = async (request: ReplicationRequest, signal: AbortSignal): Promise<void> => {
    await checkJob(request.jobId, signal)
    if (request.kind === 'inputs') {
      const bytes = await components.store.fetch(`ipfs://${request.specCid}`, { maxBytes: MAX_SPEC_BYTES, signal })
      const spec = decodeJobSpec(bytes)
      if (computeJobId(spec.creator, request.specCid, BigInt(request.nonce)).toLowerCase() !== request.jobId) {
        throw new ReplicaRefusedError(`spec ${request.specCid} and nonce do not give job ${request.jobId}`)
      }
      await pinJobContent(components.store, { jobId: request.jobId, specCid: request.specCid, spec }, { signal })
      return
    }
    const manifest = decodeManifest(await components.store.fetch(`ipfs://${request.manifestCid}`, { maxBytes: MAX_MANIFEST_BYTES, signal }))
    if (manifest.jobId.toLowerCase() !== request.jobId) {
      throw new ReplicaRefusedError(`manifest ${request.manifestCid} is of job ${manifest.jobId}, not ${request.jobId}`)
    }
    // fetch only (no executor): the asking peer holds every output
    await ensureOutputs({ store: components.store }, request.jobId, undefined, manifest.microJobs, { signal })
    await components.store.pin(`ipfs://${request.manifestCid}`, { signal })
  }

  const handle = async (stream: Stream): Promise<void> => {
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
        await serve(request, signal)
        answer = { ok: true }
        log('holding %s of %s', request.kind, request.jobId)
      } catch (err) {
        log('cannot hold %s of %s: %e', request.kind, request.jobId, err)
        answer = { ok: false, reason: `${(err as Error).name}: ${(err as Error).message}` }
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

  await components.libp2p.handle(REPLICATION_PROTOCOL, async (stream) => { await handle(stream) }, {
    maxInboundStreams: MAX_INBOUND_REPLICATION_STREAMS
  })
  return {
    async stop () {
      controller.abort()
      await components.libp2p.unhandle(REPLICATION_PROTOCOL)
    }
  }
}
