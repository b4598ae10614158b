import { delay } from '@jobmesh/contracts'
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
  /**
   * Without it every connected peer is asked once. With it, while `enough` says no, the peers that did not confirm
   * and the peers that connected meanwhile are asked again every `retryIntervalMs` until the time is up: a peer that
   * was not connected yet, or had not seen the job in the escrow yet, gets another chance.
   */
  retryIntervalMs?: number
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
 * as soon as `enough` says so, or when every peer answered (and, with `retryIntervalMs`, no retry is left) or the
 * time is up. Peers that do not speak the protocol (DApp clients) fail at once and are skipped; the caller decides
 * what too few replicas mean.
 *
 * @throws AbortError (the caller's signal)
 */
export async function replicate (components: ReplicationClientComponents, request: ReplicationRequest,
  options: ReplicateOptions): Promise<string[]> {
  const held: string[] = []
  const timeout = AbortSignal.timeout(options.timeoutMs ?? DEFAULT_REPLICATION_TIMEOUT_MS)
  const signal = options.signal == null ? timeout : AbortSignal.any([options.signal, timeout])
  const enough = (): boolean => options.enough(held)
  const unanswered = new Set<string>()
  for (;;) {
    const skip = new Set([...(options.exclude ?? []), ...held])
    const peers = components.libp2p.getPeers().filter(p => !skip.has(p.toString()))
    await askAll(components, request, peers, { held, enough, unanswered, onFailed: options.onFailed, signal })
    options.signal?.throwIfAborted()
    if (enough() || options.retryIntervalMs == null || signal.aborted) break
    try {
      await delay(options.retryIntervalMs, signal)
    } catch {
      break // the time is up, or the caller aborted (thrown below)
    }
    log('%d of the peers hold %s of %s: asking again', held.length, request.kind, request.jobId)
  }
  options.signal?.throwIfAborted()
  // the time is up: peers still busy fetching count as not holding
  if (!enough()) for (const p of unanswered) options.onFailed?.(p, 'no answer in time')
  return [...held]
}

interface AskAllState {
  held: string[]
  enough(): boolean
  /** Peers asked that have not answered yet. */
  unanswered: Set<string>
  onFailed?: ReplicateOptions['onFailed']
  signal: AbortSignal
}

/** One round: asks `peers` at once; resolves when `enough`, when all answered, or when the signal aborts. */
async function askAll (components: ReplicationClientComponents, request: ReplicationRequest, peers: PeerId[],
  state: AskAllState): Promise<void> {
  const { held, signal } = state
  if (state.enough() || peers.length === 0 || signal.aborted) return
  await new Promise<void>((resolve) => {
    let pending = peers.length
    const finish = (): void => { signal.removeEventListener('abort', finish); resolve() }
    signal.addEventListener('abort', finish, { once: true })
    for (const peer of peers) {
      state.unanswered.add(peer.toString())
      askReplica(components, peer, request, { signal }).then(() => {
        if (!held.includes(peer.toString())) held.push(peer.toString())
        log('%p holds %s of %s', peer, request.kind, request.jobId)
        if (state.enough()) finish()
      }, (err: Error) => {
        log('%p: %s of %s not held: %s', peer, request.kind, request.jobId, err.message)
        if (err.name === 'ReplicaRefusedError' && !state.enough()) state.onFailed?.(peer.toString(), err.message)
      }).finally(() => {
        state.unanswered.delete(peer.toString())
        if (--pending === 0) finish()
      })
    }
  })
}

