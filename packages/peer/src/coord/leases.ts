import { delay } from '@jobmesh/contracts'
import { logger } from '@libp2p/logger'
import { DEFAULT_LEASE_MS, DEFAULT_MAX_AHEAD_MS, DEFAULT_RENEW_MS, DEFAULT_SETTLE_MS, DEFAULT_SKEW_MS, MAX_LEASE_TERM, MIN_SETTLE_MS } from './constants.js'
import { LeaseHeldError, LeaseLostError } from './errors.js'
import { LeaseRecord } from './pb/coord.js'
import { signTrusted } from './signing.js'
import type { CoordMetrics } from './metrics.js'
import type { RecordSigner, RecordVerifier } from './signing.js'
import type { ConfirmOptions, ConfirmResult } from '../crdt/index.js'
import type { AbortOptions } from '@libp2p/interface'
import type * as Y from 'yjs'

const log = logger('jobmesh:leases')

/** A verified lease. The owner is the record's signer. */
export interface Lease {
  owner: string
  term: number
  /** Unix ms; 0 = released. */
  expiresAt: number
}

export interface LeasesComponents {
  signer: RecordSigner
  verifier: RecordVerifier
  clock?: () => number
  metrics?: CoordMetrics
}

export interface LeasesInit {
  /** Lease length (ms). Default {@link DEFAULT_LEASE_MS}. */
  leaseMs?: number
  /** Renew interval (ms). Default {@link DEFAULT_RENEW_MS}. */
  renewMs?: number
  /** Clock skew allowance (ms). Default {@link DEFAULT_SKEW_MS}. */
  skewMs?: number
  /**
   * How far beyond one lease length a lease may end ahead of this clock and still hold (ms): a writer's clock may run
   * this much fast. Default {@link DEFAULT_MAX_AHEAD_MS}.
   */
  maxAheadMs?: number
  /** Settle window (ms). Default {@link DEFAULT_SETTLE_MS}. */
  settleMs?: number
}

export interface ClaimOptions extends AbortOptions {
  /** Claim even if the lease is held (failover: the holder was declared dead by the room). */
  force?: boolean
  /** Claim at least this term (a failover must pass the term the room has already seen). */
  minTerm?: number
  /**
   * The peers the confirm exchanges with (PeerId strings; default every connected peer): the ones that could be
   * claiming the same key. Any other connected peer is left to the whole settle window.
   */
  confirmWith?: string[]
  /**
   * With `confirmWith` unset (every peer): the claim's possible rivals (PeerId strings: its room's subscribers). The
   * claim also confirms with them alone, and once they have answered and the whole settle window has passed it
   * settles, whatever the peers still answering: as a claim settles in a network too large to confirm with everyone.
   */
  rivals?: string[]
  /**
   * This claim's settle window (ms), at most the table's `settleMs`: a room's first claim among few peers waits less
   * (room-claim.ts `claimPeers`).
   */
  settleMs?: number
}

/** Leases on the records of one Y.Map; the signing domain is `<scope>/<key>`. */
export interface LeaseTable {
  /** The verified lease under `key`, or undefined (none, or invalid = absent). */
  get(key: string): Lease | undefined
  /** The stored record bytes under `key` (unverified). */
  raw(key: string): Uint8Array | undefined
  /** Open = no lease, released, `now > expiresAt + skew`, or `expiresAt > now + lease + maxAhead` (not a lease of this network). */
  isOpen(key: string): boolean
  /** True when `lease` is valid now and held by this peer with the given term. */
  holds(key: string, term: number): boolean
  /** Writes a lease for self at `current term + 1` (at least `minTerm`), no settle. Returns what was written. */
  take(key: string, options?: { force?: boolean, minTerm?: number }): Lease
  /** Take, wait the settle window, re-read: resolves with the lease if still the holder, else throws LeaseLostError. */
  claim(key: string, options?: ClaimOptions): Promise<Lease>
  /** Extends a lease this peer holds (same term). Returns undefined if it no longer holds it. */
  renew(key: string, term: number): Lease | undefined
  /** Releases a lease this peer holds (expiresAt 0, same term). */
  release(key: string, term: number): void
  /**
   * Deletes this peer's lease of `term` (expired or not), when a result now decides the item: call it in the
   * transaction that writes the result, so no peer sees the item without both a lease and a result.
   */
  drop(key: string, term: number): void
  /** Writes several leases in one transaction (one CRDT update). */
  takeMany(keys: string[]): Map<string, Lease>
}

export interface LeaseTableOptions {
  /**
   * Called by `claim` right after the lease is written: should resolve once the connected peers have the write
   * and this doc has theirs (the doc store's `confirm`), with how many of them it could not reach. The settle
   * window then only covers what it misses (`settleWait`).
   */
  confirm?(options: ConfirmOptions): Promise<ConfirmResult | undefined>
}

export interface Leases {
  readonly leaseMs: number
  readonly renewMs: number
  readonly skewMs: number
  readonly settleMs: number
  now(): number
  isOpen(lease: Lease | undefined, now?: number): boolean
  table(map: Y.Map<Uint8Array>, scope: string, options?: LeaseTableOptions): LeaseTable
}

/**
 * How long a claim waits before it re-reads its lease. Without a confirm, or when the confirm did not reach every
 * connected peer (it could not, or was asked for fewer: `confirmWith`), the settle window (`settleMs`). When it reached them all, until it is done and, counted
 * from the claim, twice its duration has passed, within [MIN_SETTLE_MS, settleMs]: what the confirm can miss is
 * a rival that wrote its claim after answering ours and before applying it, and that rival's own confirm brings
 * its claim here about one exchange later. So the window follows the exchanges' real latency: on a quiet
 * network a claim settles in tens of ms, on a loaded or distant one as before (docs/coordination.md, Leases).
 */
async function settleWait (confirm: Promise<ConfirmResult | undefined | void> | undefined, settleMs: number,
  signal?: AbortSignal): Promise<void> {
  if (confirm == null) {
    await delay(settleMs, signal)
    return
  }
  const started = performance.now()
  const result = await confirm
  const took = performance.now() - started
  const everyPeer = result != null && result.unreached === 0 && result.skipped === 0
  const window = everyPeer ? Math.min(settleMs, Math.max(MIN_SETTLE_MS, 2 * took)) : settleMs
  log('confirm took %d ms (%o), settle window %d ms', Math.round(took), result, Math.round(window))
  if (window > took) await delay(window - took, signal)
}

/**
 * Timestamp leases (DESIGN 6) on signed records in Y.Maps.
 *
 * @example
 * ```ts
 * const l = leases({ signer, verifier, clock: () => now })
 * const macro = l.table(doc.getMap('macro'), `jobmesh/macro/${jobId}`)
 * const lease = await macro.claim('0', { signal })
 * ```
 */
export function leases (components: LeasesComponents, init: LeasesInit = {}): Leases {
  const clock = components.clock ?? Date.now
  const leaseMs = init.leaseMs ?? DEFAULT_LEASE_MS
  const renewMs = init.renewMs ?? DEFAULT_RENEW_MS
  const skewMs = init.skewMs ?? DEFAULT_SKEW_MS
  const settleMs = init.settleMs ?? DEFAULT_SETTLE_MS
  const maxAheadMs = init.maxAheadMs ?? DEFAULT_MAX_AHEAD_MS
  const self = components.signer.peerId

  // a lease that runs further ahead than one lease length (plus how fast an honest writer's clock may run) was not
  // written by this network's take, claim or renew: one signed MicroJob lease of a registered peer ten years ahead held its item (and its job)
  // for good, since any valid lease may replace another (doc-guard.ts) and the owner follows a live one. Not the skew
  // allowance (2 s): every lease of a peer whose clock ran 2 s fast was then open to the others, which took its work
  const isOpen = (lease: Lease | undefined, now = clock()): boolean =>
    lease == null || lease.expiresAt === 0 || now > lease.expiresAt + skewMs || lease.expiresAt > now + leaseMs + maxAheadMs

  const table = (map: Y.Map<Uint8Array>, scope: string, tableOptions: LeaseTableOptions = {}): LeaseTable => {
    const domain = (key: string): string => `${scope}/${key}`
    const get = (key: string): Lease | undefined => {
      const value = map.get(key)
      if (!(value instanceof Uint8Array)) {
        return undefined
      }
      const record = components.verifier.verify(value, domain(key))
      if (record == null) {
        if (components.metrics != null) {
          components.metrics.invalidRecords++
        }
        return undefined
      }
      try {
        const lease = LeaseRecord.decode(record.payload)
        return { owner: record.signer, term: lease.term, expiresAt: Number(lease.expiresAt) }
      } catch {
        return undefined
      }
    }
    const write = (key: string, term: number, expiresAt: number): Lease => {
      const payload = LeaseRecord.encode({ term, expiresAt: BigInt(expiresAt) })
      map.set(key, signTrusted(components, domain(key), payload))
      return { owner: self, term, expiresAt }
    }
    const nextTerm = (key: string, options: { force?: boolean, minTerm?: number }): number => {
      const current = get(key)
      if (current != null && current.owner !== self && options.force !== true && !isOpen(current)) {
        throw new LeaseHeldError(`lease ${domain(key)} is held by ${current.owner} until ${current.expiresAt}`)
      }
      // a term past the uint32 record would be written as 0 and never held: a registered peer's one lease (and one
      // snapshot opening its epoch) of term 2^32 - 1 made every failover of the room claim 2^32 and lose it, until the
      // members' turn waits ran out (30 s); at the ceiling a claim takes the same term over (the CRDT's last writer
      // wins, members yield to the epoch the CRDT keeps, room-member.ts chainOf, and its other owner stands down,
      // room-serve.ts stoodDown); a failover does not take over another member's live claim of it (topClaimOfAnother)
      return Math.min(MAX_LEASE_TERM, Math.max((current?.term ?? 0) + 1, options.minTerm ?? 0))
    }
    const holds = (key: string, term: number): boolean => {
      const lease = get(key)
      return lease != null && lease.owner === self && lease.term === term && lease.expiresAt !== 0 &&
        clock() <= lease.expiresAt
    }
    return {
      get,
      raw: (key) => {
        const value = map.get(key)
        return value instanceof Uint8Array ? value : undefined
      },
      isOpen: (key) => isOpen(get(key)),
      holds,
      take (key, options = {}) {
        return write(key, nextTerm(key, options), clock() + leaseMs)
      },
      takeMany (keys) {
        const out = new Map<string, Lease>()
        const apply = (): void => {
          for (const key of keys) {
            out.set(key, write(key, nextTerm(key, { force: true }), clock() + leaseMs))
          }
        }
        if (map.doc != null) {
          map.doc.transact(apply)
        } else {
          apply()
        }
        return out
      },
      async claim (key, options = {}) {
        const written = write(key, nextTerm(key, options), clock() + leaseMs)
        log('claimed %s term %d, settling', domain(key), written.term)
        // the exchange makes concurrent claims visible on both sides without relying on gossip timing; the settle
        // window covers peers the exchange could not reach
        const confirm = (peers: string[] | undefined): Promise<ConfirmResult | undefined | void> | undefined =>
          tableOptions.confirm?.({ signal: options.signal, peers })
            .catch((err: Error) => { log('confirm of %s failed: %s', domain(key), err.message) })
        const window = Math.min(settleMs, options.settleMs ?? settleMs)
        const settled = [settleWait(confirm(options.confirmWith), window, options.signal)]
        if (options.confirmWith == null && options.rivals != null && tableOptions.confirm != null) {
          // peers starved at a job's start answer a confirm with every peer in 0.2-0.4 s: the rivals and the window
          // decide then
          settled.push(settleWait(confirm(options.rivals), window, options.signal))
        }
        // a rival's record that replaces ours settles the claim at once: once the CRDT shows another value, ours
        // has lost on every peer (the loser looks elsewhere instead of waiting out the exchange)
        const lost = overwritten(map, key, () => !holds(key, written.term))
        try {
          await Promise.race([...settled, lost.promise])
        } finally {
          lost.stop()
        }
        options.signal?.throwIfAborted()
        if (!holds(key, written.term)) {
          const now = get(key)
          log('lost %s term %d to %s', domain(key), written.term, now?.owner)
          throw new LeaseLostError(`lease ${domain(key)} went to ${now?.owner ?? 'nobody'}`)
        }
        return written
      },
      renew (key, term) {
        if (!holds(key, term)) {
          return undefined
        }
        return write(key, term, clock() + leaseMs)
      },
      release (key, term) {
        if (holds(key, term)) {
          write(key, term, 0)
        }
      },
      drop (key, term) {
        const lease = get(key)
        if (lease != null && lease.owner === self && lease.term === term) {
          map.delete(key)
        }
      }
    }
  }

  return { leaseMs, renewMs, skewMs, settleMs, now: clock, isOpen, table }
}

/** Resolves when a change of `key` in `map` makes `lost()` true; `stop` removes the observer. */
function overwritten (map: Y.Map<Uint8Array>, key: string, lost: () => boolean): { promise: Promise<void>, stop(): void } {
  let observer: ((event: Y.YMapEvent<Uint8Array>) => void) | undefined
  const promise = new Promise<void>(resolve => {
    observer = (event) => { if (event.keysChanged.has(key) && lost()) resolve() }
    map.observe(observer)
  })
  return { promise, stop: () => { if (observer != null) map.unobserve(observer) } }
}
