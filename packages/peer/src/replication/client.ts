import { logger } from '@libp2p/logger'
import * as lp from 'it-length-prefixed'
import { DEFAULT_REPLICATION_TIMEOUT_MS, MAX_REPLICATION_MESSAGE_BYTES, REPLICATION_PROTOCOL } from './constants.js'
import { ReplicaRefusedError, ReplicationProtocolError } from './errors.js'
import { decodeAnswer, encodeMessage } from './wire.js'
import type { ReplicationRequest } from './wire.js'
import type { PeerId, Stream } from '@libp2p/interface'
import type { Libp2p } from 'libp2p'

const log = logger('jobmesh:replication')

/** The parts of a libp2p node that ask for replicas. */
export interface ReplicationClientComponents {
  libp2p: Pick<Libp2p, 'getPeers' | 'dialProtocol'>
}

export interface ReplicateOptions {
  /** True once the peers that confirmed (PeerId strings) are enough; the call then resolves at once. */
  enough(held: readonly string[]): boolean
  /** Peers not to ask (PeerId strings). */
  exclude?: ReadonlySet<string>
  /**
   * Called for a peer that speaks the protocol but did not confirm: it answered no, or had not answered when the
   * call ended without `enough` (peers that do not speak the protocol, such as DApp clients, are not reported).
   */
  onFailed?(peer: string, reason: string): void
  /** Bound of the whole call (ms), default 120 000. */
  timeoutMs?: number
  signal?: AbortSignal
}

/**
 * Asks one peer to hold content and waits for its answer.
 *
 * @throws ReplicaRefusedError (it answered no), ReplicationProtocolError, the dial's errors (e.g. the peer does not
 * speak the protocol), AbortError
 */
export async function askReplica (components: ReplicationClientComponents, peer: PeerId, request: ReplicationRequest,
  options: { signal: AbortSignal }): Promise<void> {
  const { signal } = options
  const stream: Stream = await components.libp2p.dialProtocol(peer, REPLICATION_PROTOCOL, { signal })
  const onAbort = (): void => { stream.abort(signal.reason instanceof Error ? signal.reason : new Error('aborted')) }
  signal.addEventListener('abort', onAbort, { once: true })
  try {
    if (!stream.send(lp.encode.single(encodeMessage(request)))) await stream.onDrain({ signal })
    const next = await lp.decode(stream, { maxDataLength: MAX_REPLICATION_MESSAGE_BYTES }).next()
    signal.throwIfAborted()
    if (next.done === true) throw new ReplicationProtocolError(`${peer.toString()} closed the stream without an answer`)
    const answer = decodeAnswer(next.value.subarray())
    await stream.close({ signal }).catch(() => {})
    if (!answer.ok) throw new ReplicaRefusedError(`${peer.toString()} did not hold ${request.kind} of ${request.jobId}: ${answer.reason}`)
  } catch (err) {
    stream.abort(err as Error)
    throw err
  } finally {
    signal.removeEventListener('abort', onAbort)
  }
}

/**
 * Asks every connected peer (but `exclude`) to hold content, at once, and resolves with the PeerIds that confirmed
 * as soon as `enough` says so, or when every peer answered or the time is up. Peers that do not speak the
 * protocol (DApp clients) fail at once and are skipped; the caller decides what too few replicas mean.
 *
 * @throws AbortError (the caller's signal)
 */
export async function replicate (components: ReplicationClientComponents, request: ReplicationRequest,
  options: ReplicateOptions): Promise<string[]> {
  const held: string[] = []
  const timeout = AbortSignal.timeout(options.timeoutMs ?? DEFAULT_REPLICATION_TIMEOUT_MS)
  const signal = options.signal == null ? timeout : AbortSignal.any([options.signal, timeout])
  const peers = components.libp2p.getPeers().filter(p => options.exclude?.has(p.toString()) !== true)
  if (options.enough(held) || peers.length === 0) return held
  const waiting = new Set(peers.map(String))
  let satisfied = false
  await new Promise<void>((resolve) => {
    let pending = peers.length
    const finish = (): void => { signal.removeEventListener('abort', finishNow); resolve() }
    const finishNow = (): void => { finish() }
    signal.addEventListener('abort', finishNow, { once: true })
    for (const peer of peers) {
      askReplica(components, peer, request, { signal }).then(() => {
        held.push(peer.toString())
        log('%p holds %s of %s', peer, request.kind, request.jobId)
        if (options.enough(held)) {
          satisfied = true
          finish()
        }
      }, (err: Error) => {
        log('%p: %s of %s not held: %s', peer, request.kind, request.jobId, err.message)
        if (err.name === 'ReplicaRefusedError' && !satisfied) options.onFailed?.(peer.toString(), err.message)
      }).finally(() => {
        waiting.delete(peer.toString())
        if (--pending === 0) finish()
      })
    }
  })
  options.signal?.throwIfAborted()
  // the time is up: peers still busy fetching count as not holding
  if (!satisfied) for (const p of waiting) options.onFailed?.(p, 'no answer in time')
  return [...held]
}
