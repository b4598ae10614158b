import type { UpdateVerdict } from './admit.js'
import type { GuardedPubSub, RateLimitInit } from './gossip-guard.js'
import type { DocStoreMetrics } from './metrics.js'
import type { SyncResult } from './sync.js'
import type { DocGuards } from './update-guard.js'
import type { TrafficCounters } from '../protocol/index.js'
import type { GossipSub, PublishResult } from '@libp2p/gossipsub'
import type { AbortOptions, Libp2p, PeerId } from '@libp2p/interface'
import type { Datastore } from 'interface-datastore'
import type * as Y from 'yjs'

/** What the store needs from the node; a {@link JobmeshNode} has all of it. */
export interface DocStoreComponents {
  peerId: PeerId
  datastore: Datastore
  pubsub: Pick<GossipSub, 'subscribe' | 'unsubscribe' | 'getSubscribers' | 'addEventListener' | 'removeEventListener'> &
  MeshPublisher & Partial<GuardedPubSub>
  libp2p: Pick<Libp2p, 'handle' | 'unhandle' | 'dialProtocol' | 'getPeers' | 'addEventListener' | 'removeEventListener'>
  /** Counts published and received updates (benches, profiles). */
  counters?: TrafficCounters
}

/**
 * Publishing with gossipsub's implementation (@libp2p/gossipsub 17), which takes per-message options and shows a
 * topic's mesh: an update goes to the mesh only once it has formed (flush.ts). Without `getMeshPeers` every update
 * is flood published.
 */
export interface MeshPublisher {
  publish(topic: string, data: Uint8Array, options?: { floodPublish?: boolean }): Promise<PublishResult>
  getMeshPeers?(topic: string): string[]
}

export interface DocStoreInit {
  /** Largest update published on gossipsub; bigger ones go over sync streams. Default {@link DEFAULT_MAX_UPDATE_BYTES}. */
  maxUpdateBytes?: number
  /** Default {@link DEFAULT_SYNC_TIMEOUT_MS}. */
  syncTimeoutMs?: number
  /** Default {@link DEFAULT_SYNC_CHUNK_BYTES}. */
  syncChunkBytes?: number
  /** Default {@link DEFAULT_MAX_SYNC_BYTES}. */
  maxSyncBytes?: number
  /** Default {@link DEFAULT_SYNC_CONCURRENCY}. */
  syncConcurrency?: number
  /** Default {@link DEFAULT_COMPACT_EVERY}. */
  compactEvery?: number
  /** Default {@link DEFAULT_COMPACT_INTERVAL_MS}; 0 disables the timer. */
  compactIntervalMs?: number
  /** Default timeout of each exchange of `confirm`. Default {@link DEFAULT_CONFIRM_TIMEOUT_MS}. */
  confirmTimeoutMs?: number
  /** Least time between two pulls from one peer for missing dependencies. Default {@link DEFAULT_PENDING_PULL_INTERVAL_MS}. */
  pendingPullIntervalMs?: number
  /**
   * Which peers may write (gossip) and sync a doc. A gossiped update from a peer not admitted is rejected before it
   * is applied or forwarded; sync exchanges with it are refused both ways. Default: every peer.
   */
  admit?(peerId: string, docName: string): boolean | Promise<boolean>
  /**
   * Whether a remote update of a doc, from a peer `admit` let in (the gossip's author, the sync's other side), may be
   * applied: content rules that need more than the guard's synchronous look, such as a chain read (`UpdateVerdict`:
   * a gossiped update is rejected on `no`, ignored on `later`; a sync diff is dropped unless `yes`). Default: every
   * update.
   */
  admitUpdate?(peerId: string, docName: string, update: Uint8Array): UpdateVerdict | Promise<UpdateVerdict>
  /** Who may change which keys of a doc (docs/crdt.md, Ownership). Default: no guard. */
  guards?: DocGuards
  /** Per-peer rate of gossip messages on each doc topic. Default {@link DEFAULT_GOSSIP_RATE_PER_SECOND} / {@link DEFAULT_GOSSIP_BURST}. */
  gossipRate?: RateLimitInit
}

export interface OpenOptions extends AbortOptions {
  /** Skip the catch-up from connected peers (it still happens when peers subscribe). */
  offline?: boolean
  /**
   * The catch-up on open (default `'all'`: an exchange with every connected peer). `'first'`: one exchange, with the
   * first subscriber of the doc's topic that answers (none known: no exchange; it brings nearly everything; a read,
   * `follow: false`, then asks the other connected peers one at a time until one has the doc). The other
   * peers that have the doc open exchange with a follower anyway when they see its subscription (a pull and a push),
   * so `'all'` only doubles those exchanges; it is for readers that must hold every connected peer's state when
   * `open` resolves. The processor uses `'first'`: its MacroJob claim confirms with every connected peer before it
   * counts (docs/crdt.md, Sync protocol).
   */
  catchUp?: CatchUpMode
  /**
   * Connected peers (PeerId strings) the catch-up asks first, before the topic's subscribers: peers known to hold the
   * whole doc (a finished MacroJob's summarizer). Not connected: skipped.
   */
  askFirst?: string[]
  /**
   * `open` resolves once the catch-up is done or this long (ms) has passed, whichever comes first; a catch-up not done
   * by then goes on, and what it brings is applied as it arrives (its failure is logged, not thrown; an abort of
   * `signal` still is). Default: wait for it.
   */
  catchUpWaitMs?: number
  /**
   * `false`: a read, not a membership. The doc is loaded, caught up (`catchUp`), persisted and served, but its topic is
   * not subscribed: no gossip of it reaches this peer, and the peers that hold it do not exchange with this one on its
   * subscription (a pull and a push each, per newcomer). For a doc this peer only needs to read: a finished MacroJob's, read
   * by a peer that did not work on it. A later open without `follow: false` subscribes it and catches up again.
   * Default true.
   */
  follow?: boolean
}

/** See {@link OpenOptions.catchUp}. */
export type CatchUpMode = 'all' | 'first'

export interface SyncOptions extends AbortOptions {
  /** Also send our diff (default true). A pull only receives. */
  push?: boolean
  /** Never join an exchange that is already running: wait for it, then run a new one (default false). */
  fresh?: boolean
  /** Timeout of this exchange (default: the store's `syncTimeoutMs`). */
  timeoutMs?: number
  /**
   * The responder applies our pushed diff without re-broadcasting it on gossip (default false: a joiner's offline
   * writes are re-broadcast so that peers it is not connected to get them). For pushes of writes we publish
   * ourselves: `confirm`, and the push to a new subscriber (docs/crdt.md, Sync protocol).
   */
  quiet?: boolean
}

/** What `confirm` reached. */
export interface ConfirmResult {
  /** Peers that completed the exchange. */
  exchanged: number
  /** Connected peers whose exchange failed or timed out (a peer without the doc open is neither). */
  unreached: number
  /** Connected peers not asked (`ConfirmOptions.peers`). */
  skipped: number
}

export interface ConfirmOptions extends AbortOptions {
  /** Timeout of each exchange. Default {@link DEFAULT_CONFIRM_TIMEOUT_MS}. */
  timeoutMs?: number
  /** Exchange with these connected peers only (PeerIds or their strings); the others count as `skipped`. */
  peers?: Array<PeerId | string>
}

/** Yjs docs shared over gossipsub, caught up over `/jobmesh/sync/1.0.0`, persisted in the datastore. */
export interface DocStore {
  /**
   * Opens a doc (or returns the open one): loads its stored state, subscribes to `/jobmesh/1/doc/<name>` (unless
   * `follow: false`), and catches up from connected peers (one first, then the rest in parallel) before resolving.
   * A doc open for reading only (`follow: false`) that is opened again to follow is subscribed and caught up then.
   */
  open(name: string, options?: OpenOptions): Promise<Y.Doc>
  /** The open doc, or undefined. */
  get(name: string): Y.Doc | undefined
  /**
   * Flushes, compacts and closes a doc (its topic is left); it stays in the datastore, and this store still answers
   * sync requests for it from there, read-only (a pushed diff is ignored): a settled job's docs stay readable. A doc
   * still being opened is closed once it is open.
   */
  close(name: string): Promise<void>
  /** Names of the docs open, or being opened, here. */
  names(): string[]
  /**
   * What this store holds of a doc, without opening it (nothing subscribed, nothing asked of peers, nothing kept in
   * memory): the open doc's state, else the datastore's; undefined when it has none (or for a bad name).
   */
  storedState(name: string): Promise<Uint8Array | undefined>
  /**
   * One sync exchange with a peer: both sides send what the other lacks (state vector -> diff).
   *
   * @throws DocNotOpenError if the doc is not open here; DocNotFoundError if it is not open there
   */
  sync(name: string, peer: PeerId | string, options?: SyncOptions): Promise<SyncResult>
  /**
   * A fresh exchange (both ways) with every connected peer that has the doc open, in parallel. When it resolves,
   * every such peer has everything this doc had at the call, and this doc has everything they had when they
   * answered: a write followed by `confirm` cannot be missed by a connected peer (leases use it to settle).
   * Failures and timeouts are skipped (best effort) and counted as `unreached`.
   */
  confirm(name: string, options?: ConfirmOptions): Promise<ConfirmResult>
  /** Waits until every update made so far is persisted and published. */
  flush(name?: string): Promise<void>
  /** Merges a doc's stored updates into one snapshot now. */
  compact(name: string): Promise<void>
  /** Closes every doc (flush + compaction) and stops serving sync. */
  stop(): Promise<void>
  readonly metrics: DocStoreMetrics
}
