import { anySignal, delay } from '@jobmesh/contracts'
import { logger } from '@libp2p/logger'
import { DEFAULT_REPLICATION_TIMEOUT_MS, REPLICATION_PROTOCOL } from './constants.js'
import { ReplicaRefusedError } from './errors.js'
import { exchange } from './exchange.js'
import { decodeAnswer, encodeMessage } from './wire.js'
import type { ReplicationRequest } from './wire.js'
import type { PeerId } from '@libp2p/interface'
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
   * Whether a peer's confirmation counts (e.g. only a registered node's that then proves it, `proveHolding`: a "held"
   * alone carries no proof, and anyone can say it). A confirmation that does not count, or whose check fails, is logged and left out of the result; the
   * peer is not reported to `onFailed` (it holds the content, it is only not trusted to).
   */
  counts?(peer: string, options: { signal: AbortSignal }): Promise<boolean>
  /**
   * Called for a peer that speaks the protocol but did not confirm: it answered no, or had not answered when the
   * call ended without `enough` (peers that do not speak the protocol, such as DApp clients, are not reported).
   */
  onFailed?(peer: string, reason: string, refusal?: string): void
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
  const answer = decodeAnswer(await exchange(components.libp2p, peer, REPLICATION_PROTOCOL, encodeMessage(request), options))
  if (!answer.ok) throw new ReplicaRefusedError(`${peer.toString()} did not hold ${request.kind} of ${request.jobId}: ${answer.reason}`, { answer: answer.reason, refusal: answer.error })
}

/**
 * Asks every connected peer (but `exclude`) to hold content, at once, and resolves with the PeerIds that confirmed
 * as soon as `enough` says so, or when every peer answered (and, with `retryIntervalMs`, no retry is left) or the
 * time is up. Peers that do not speak the protocol (DApp clients) fail at once and are skipped; the caller decides
 * what too few replicas mean. With `retryIntervalMs` a round lasts that long even while a peer has not answered
 * (a stalled peer does not hold back the peers that connect later); a peer is never asked twice at once.
 *
 * @throws AbortError (the caller's signal)
 */
export async function replicate (components: ReplicationClientComponents, request: ReplicationRequest,
  options: ReplicateOptions): Promise<string[]> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_REPLICATION_TIMEOUT_MS
  // ends the streams still open when the call returns (a peer that was asked keeps fetching on its own signal)
  const ended = new AbortController()
  const signal = anySignal([ended.signal, options.signal], timeoutMs)
  const asking = askingState(components, request, options, signal)
  try {
    for (;;) {
      const skip = new Set([...(options.exclude ?? []), ...asking.held, ...asking.unanswered])
      for (const peer of components.libp2p.getPeers()) if (!skip.has(peer.toString())) asking.ask(peer)
      const roundEnd = options.retryIntervalMs == null ? undefined : Date.now() + options.retryIntervalMs
      while (!asking.enough() && !signal.aborted) {
        const left = roundEnd == null ? timeoutMs : roundEnd - Date.now()
        if ((roundEnd == null && asking.unanswered.size === 0) || left <= 0) break
        await asking.answerOr(left)
      }
      options.signal?.throwIfAborted()
      if (asking.enough() || options.retryIntervalMs == null || signal.aborted) break
      log('%d of the peers hold %s of %s: asking again', asking.held.length, request.kind, request.jobId)
    }
    options.signal?.throwIfAborted()
    // the time is up: peers still busy fetching count as not holding
    if (!asking.enough()) for (const p of asking.unanswered) options.onFailed?.(p, 'no answer in time')
    return [...asking.held]
  } finally {
    ended.abort()
  }
}

interface AskingState {
  /** Peers that confirmed. */
  held: string[]
  /** Peers asked that have not answered yet. */
  unanswered: Set<string>
  enough(): boolean
  /** Asks one peer; its answer lands in `held` (or `onFailed`) whenever it comes. */
  ask(peer: PeerId): void
  /** Resolves at the next answer, after `ms`, or when the call's signal aborts. */
  answerOr(ms: number): Promise<void>
}

function askingState (components: ReplicationClientComponents, request: ReplicationRequest, options: ReplicateOptions,
  signal: AbortSignal): AskingState {
  const held: string[] = []
  const unanswered = new Set<string>()
  const enough = (): boolean => options.enough(held)
  const counted = async (peer: string): Promise<boolean> => {
    if (options.counts == null) return true
    const yes = await options.counts(peer, { signal }).catch((err: Error) => {
      log('%s: its confirmation does not count: %s', peer, err.message)
      return false
    })
    if (!yes) log('%s holds %s of %s but does not count', peer, request.kind, request.jobId)
    return yes
  }
  let answered = new AbortController()
  return {
    held,
    unanswered,
    enough,
    ask (peer) {
      const id = peer.toString()
      unanswered.add(id)
      askReplica(components, peer, request, { signal }).then(async () => {
        if (!await counted(id)) return
        if (!held.includes(id)) held.push(id)
        log('%p holds %s of %s', peer, request.kind, request.jobId)
      }, (err: Error) => {
        log('%p: %s of %s not held: %s', peer, request.kind, request.jobId, err.message)
        // an answer decoded as the call returned is not reported after it (signal: the call's, aborted at its end)
        if (err.name === 'ReplicaRefusedError' && !enough() && !signal.aborted) options.onFailed?.(id, (err as ReplicaRefusedError).answer, (err as ReplicaRefusedError).refusal)
      }).finally(() => {
        unanswered.delete(id)
        answered.abort()
      })
    },
    async answerOr (ms) {
      answered = new AbortController()
      await delay(ms, AbortSignal.any([signal, answered.signal])).catch(() => {})
    }
  }
}
