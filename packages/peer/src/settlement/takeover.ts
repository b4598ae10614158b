import { delay } from '@jobmesh/contracts'
import { createHash } from 'node:crypto'
import { logger } from '@libp2p/logger'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { DEFAULT_TAKEOVER_GRACE_MS, DEFAULT_TAKEOVER_STEP_MS } from './constants.js'
import { readProfiles, roundKey } from '../jobs/index.js'
import type { SettlementComponents } from './types.js'
import type { ChainClient } from '@jobmesh/contracts'

const log = logger('jobmesh:settlement:takeover')

/**
 * The order in which the peers of a job's round take over its finalization: rendezvous hashing on
 * sha256(`<roundKey>/<peerId>`), lowest first. Every peer computes the same order from the same set, so two peers
 * that agree on who is alive never take their turn at the same time.
 */
export function takeoverOrder (jobId: string, round: number, peers: Iterable<string>): string[] {
  const scope = roundKey(jobId.toLowerCase(), round)
  const rank = (p: string): string => createHash('sha256').update(`${scope}/${p}`).digest('hex')
  return [...new Set(peers)].map(p => ({ p, h: rank(p) })).sort((a, b) => a.h < b.h ? -1 : a.h > b.h ? 1 : 0).map(x => x.p)
}

/**
 * Whether `self` takes over at `elapsedMs` after it saw the job complete: the live candidate ranked `i` (in
 * {@link takeoverOrder}) has its turn from `graceMs + i * stepMs` on. A candidate that dies is no longer live, so
 * the ones behind it move up; one that is alive but does not submit is followed by the next after `stepMs`.
 */
export function isTakeoverTurn (order: readonly string[], self: string, elapsedMs: number, graceMs: number, stepMs: number): boolean {
  const rank = order.indexOf(self)
  if (rank < 0 || elapsedMs < graceMs) return false
  return rank <= Math.floor((elapsedMs - graceMs) / stepMs)
}

export interface TakeoverComponents extends Pick<SettlementComponents, 'docs' | 'privateKey'> {
  chain: Pick<ChainClient, 'job'>
  /** PeerIds this node is connected to now (liveness). */
  livePeers(): string[]
  /** The settlement service's finalization (journaled, retried, idempotent). */
  finalize(jobId: string): Promise<unknown>
}

export interface TakeoverInit {
  /** How long after a job completed its finalizer has to submit before the first other peer takes over (ms). */
  graceMs?: number
  /** Pause between the turns of the next candidates (ms). */
  stepMs?: number
  /** Injected clock (tests). */
  now?(): number
}

/** Watches completed jobs this peer did not finalize, and finalizes one whose finalizer never submits. */
export interface Takeover {
  /** This peer saw `jobId` complete by another peer's result: take over if it is still Open after the grace time. */
  watch(jobId: string): void
  /** Jobs watched now. */
  watching(): string[]
  stop(): Promise<void>
}

/**
 * The replacement finalizer (docs/settlement.md, Takeover). For each watched job: at the grace time, and after
 * every step, read the job on chain; while it is Open in the same round, the live candidates (this peer and the
 * connected peers with a jobmesh profile in `jobmesh/index`, i.e. registered nodes, not DApp clients) are ordered by
 * {@link takeoverOrder} and the one whose turn it is finalizes. A finalizer that comes back and submits first, or two peers that disagree on who is alive, cost a
 * reverted `submitResults` (the escrow accepts one submission per round; `finalizeJob` reports `already`).
 */
export function createTakeover (components: TakeoverComponents, init: TakeoverInit = {}): Takeover {
  const graceMs = init.graceMs ?? DEFAULT_TAKEOVER_GRACE_MS
  const stepMs = init.stepMs ?? DEFAULT_TAKEOVER_STEP_MS
  const now = init.now ?? Date.now
  const controller = new AbortController()
  const watched = new Map<string, Promise<void>>()
  const again = new Set<string>()
  const self = peerIdFromPrivateKey(components.privateKey).toString()

  const run = async (jobId: string): Promise<void> => {
    const signal = controller.signal
    const seenAt = now()
    const { status, rejections: round } = await components.chain.job(jobId, { signal })
    if (status !== 'Open') return
    for (let tick = 0; ; tick++) {
      await delay(Math.max(0, seenAt + graceMs + tick * stepMs - now()), signal)
      const job = await components.chain.job(jobId, { signal })
      if (job.status !== 'Open' || job.rejections !== round) return
      const live = new Set([self, ...components.livePeers()])
      const nodes = await readProfiles(components, { signal })
      const order = takeoverOrder(jobId, round, [self, ...[...nodes.keys()].filter(p => live.has(p))])
      if (!isTakeoverTurn(order, self, now() - seenAt, graceMs, stepMs)) continue
      log('%s round %d still not submitted %d ms after it completed: finalizing it here (rank %d of %d live peers)',
        jobId, round, now() - seenAt, order.indexOf(self), order.length)
      await components.finalize(jobId)
      return
    }
  }

  const watch = (jobId: string): void => {
    const id = jobId.toLowerCase()
    if (controller.signal.aborted) return
    // a later round completed while the watch of an earlier one still waits: watch again once that one ends
    if (watched.has(id)) {
      again.add(id)
      return
    }
    const p = run(id).catch((err: Error) => {
      if (!controller.signal.aborted) log.error('takeover of %s: %e', id, err)
    }).finally(() => {
      watched.delete(id)
      if (again.delete(id)) watch(id)
    })
    watched.set(id, p)
  }

  return {
    watch,
    watching () {
      return [...watched.keys()]
    },
    async stop () {
      controller.abort()
      await Promise.allSettled([...watched.values()])
    }
  }
}
