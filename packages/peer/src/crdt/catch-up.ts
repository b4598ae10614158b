import { logger } from '@libp2p/logger'
import * as Y from 'yjs'
import { YOUNG_DOC_MAX_ITEMS } from './constants.js'
import { DocNotFoundError } from './errors.js'
import { docNameOfTopic } from './names.js'
import { owesPeer } from './open-doc.js'
import type { DocStoreComponents, OpenOptions, SyncOptions } from './doc-store-types.js'
import type { OpenDoc } from './open-doc.js'
import type { SyncResult } from './sync.js'
import type { SubscriptionChangeData } from '@libp2p/gossipsub'
import type { AbortOptions, PeerId } from '@libp2p/interface'

const log = logger('jobmesh:crdt')

export interface CatchUpComponents {
  pubsub: Pick<DocStoreComponents['pubsub'], 'getSubscribers'>
  libp2p: Pick<DocStoreComponents['libp2p'], 'getPeers'>
  docs: Map<string, OpenDoc>
  syncConcurrency: number
  /** The store's `sync`. */
  sync(name: string, peer: PeerId, options: SyncOptions): Promise<SyncResult>
}

/** When exchanges happen besides `sync` and `confirm` (docs/crdt.md, Sync protocol): on open and on subscription. */
export interface CatchUp {
  /** Sync with one connected peer (subscribers of the topic first), then with the rest in parallel. */
  catchUp(name: string, options: AbortOptions & Pick<OpenOptions, 'catchUp' | 'follow' | 'askFirst'>): Promise<void>
  /**
   * After an open without catch-up: a young doc's stored state goes to one subscriber, in the background. A subscriber
   * that published nothing for us skips its exchange with us (below), so nobody would pull what we stored.
   */
  pushStored(name: string): void
  /** The pubsub 'subscription-change' listener. */
  onSubscriptionChange(evt: CustomEvent<SubscriptionChangeData>): void
  /** The libp2p 'peer:disconnect' listener. */
  onPeerDisconnect(evt: CustomEvent<PeerId>): void
}

export function createCatchUp (components: CatchUpComponents): CatchUp {
  const { docs } = components

  async function catchUp (name: string, options: AbortOptions & Pick<OpenOptions, 'catchUp' | 'follow' | 'askFirst'>): Promise<void> {
    const entry = docs.get(name)
    if (entry == null) return
    const subscribers = new Set(components.pubsub.getSubscribers(entry.topic).map(String))
    // 'first' asks the subscribers only: a peer not subscribed (yet) has no state of this doc to give, and it exchanges
    // with us when it subscribes. At a new job nobody is subscribed yet, and asking an unsubscribed peer cost every
    // processor one exchange of 150-570 ms (8 processes on 2 cores) before it could choose a MacroJob. The peers
    // of askFirst go first, then the subscribers; a read (follow: false) then asks the others too, one at a time until
    // one has the doc: a finished MacroJob's doc may be held only by peers that read it (not subscribed) once its
    // room's members left.
    const first = new Set(options.askFirst ?? [])
    const rank = (p: PeerId): number => first.has(p.toString()) ? 2 : subscribers.has(p.toString()) ? 1 : 0
    const peers = components.libp2p.getPeers()
      .filter(p => options.catchUp !== 'first' || options.follow === false || rank(p) > 0)
      .sort((a, b) => rank(b) - rank(a))
    if (peers.length === 0) return
    const attempt = async (peer: PeerId): Promise<boolean> => {
      try {
        await components.sync(name, peer, { ...options, push: true })
        return true
      } catch (err) {
        if ((err as Error).name !== DocNotFoundError.name) {
          log('catch-up of %s from %p failed: %e', name, peer, err)
        }
        return false
      }
    }
    // the first peer that has the doc gives us nearly everything; the others then send small diffs
    let i = 0
    while (i < peers.length && !(await attempt(peers[i++]))) {
      options.signal?.throwIfAborted()
    }
    // 'first': every other peer that has the doc open pulls from and pushes to us when it sees our subscription
    // (onSubscriptionChange below), so exchanging with it from here too would only double the exchanges
    if (options.catchUp === 'first') return
    await syncAll(peers.slice(i), attempt, options)
  }

  /** Exchanges with every peer of `rest`, `syncConcurrency` at a time. */
  async function syncAll (rest: PeerId[], attempt: (peer: PeerId) => Promise<boolean>, options: AbortOptions): Promise<void> {
    const workers = Array.from({ length: Math.min(components.syncConcurrency, rest.length) }, async () => {
      for (let p = rest.shift(); p != null; p = rest.shift()) {
        options.signal?.throwIfAborted()
        await attempt(p)
      }
    })
    await Promise.all(workers)
  }

  function pushStored (name: string): void {
    const entry = docs.get(name)
    if (entry == null || entry.published === 0 || !isYoung(entry.doc)) return
    catchUp(name, { catchUp: 'first' }).catch(err => { log('push of the stored %s failed: %e', name, err) })
  }

  function onSubscriptionChange (evt: CustomEvent<SubscriptionChangeData>): void {
    const { peerId, subscriptions } = evt.detail
    for (const { topic, subscribe } of subscriptions) {
      const name = docNameOfTopic(topic)
      if (!subscribe || name == null) continue
      const entry = docs.get(name)
      if (entry == null) continue
      exchangeWithSubscriber(entry, peerId).catch(err => {
        if ((err as Error).name !== DocNotFoundError.name) {
          log('exchange of %s with %p failed: %e', name, peerId, err)
        }
      })
    }
  }

  /**
   * A peer subscribed to an open doc's topic (a newcomer, or a peer that reconnected): gossip is not replayed, so
   * what each side wrote before seeing the other's subscription must be exchanged. First a pull (what the peer
   * has); then, unless the peer's own catch-up with us completed meanwhile (it usually runs right after its
   * subscription and carries all of our state), a push of our diff. The push is deferred because a newcomer still
   * catching up has an empty state vector: pushing at once would send it the whole doc a second time.
   * Even after a completed exchange the push runs (a fresh one, small: state vectors and what changed): what we
   * wrote between that exchange and gossipsub learning of this subscription was published to nobody.
   */
  async function exchangeWithSubscriber (entry: OpenDoc, peerId: PeerId): Promise<void> {
    const peer = peerId.toString()
    if (isYoung(entry.doc)) {
      // Each peer delivers what it published itself: the subscriber's own writes reach us from it (its gossip, if
      // it knew us; else its exchange when it sees our subscription), others' writes from their writers. So a peer
      // that published nothing since its last diff to this subscriber has nothing to give it. At a new job, where
      // every peer subscribes at once and most have written nothing yet, this skips most of N(N-1) exchanges.
      if (!owesPeer(entry, peer)) return
      // both ways at once: the push's diff is taken now, against the state the peer sends, and all this doc holds
      // is a few records (YOUNG_DOC_MAX_ITEMS)
      await components.sync(entry.name, peerId, { push: true, fresh: true, quiet: true })
      return
    }
    if (!entry.synced.has(peer)) {
      await components.sync(entry.name, peerId, { push: false })
    }
    await entry.serving.get(peer)
    if (docs.get(entry.name) !== entry) return
    // quiet: every connected peer that has the doc pushes what it holds to the newcomer this way, so the newcomer's
    // re-broadcast of each push only repeated what the others already had: at a new job, where every peer subscribes
    // at once, it was 40 % of the job doc's gossip messages with 8 peers
    await components.sync(entry.name, peerId, { push: true, fresh: true, quiet: true })
  }

  /** At most YOUNG_DOC_MAX_ITEMS items: each writer's clock counts the items it created. */
  function isYoung (doc: Y.Doc): boolean {
    let items = 0
    for (const client of doc.store.clients.keys()) items += Y.getState(doc.store, client)
    return items <= YOUNG_DOC_MAX_ITEMS
  }

  function onPeerDisconnect (evt: CustomEvent<PeerId>): void {
    const peer = evt.detail.toString()
    for (const entry of docs.values()) {
      entry.synced.delete(peer)
      // it may come back without what we sent it (a restart)
      entry.sentTo.delete(peer)
    }
  }

  return { catchUp, pushStored, onSubscriptionChange, onPeerDisconnect }
}
