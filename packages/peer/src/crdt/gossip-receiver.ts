import { logger } from '@libp2p/logger'
import * as Y from 'yjs'
import { GOSSIP_UPDATE_VERSION } from './constants.js'
import { TopicValidatorResult } from './gossip-guard.js'
import { docNameOfTopic } from './names.js'
import { ORIGIN_GOSSIP } from './origins.js'
import { countReceived } from '../protocol/index.js'
import type { Admitted, UpdateAdmitted } from './admit.js'
import type { DocStoreComponents, SyncOptions } from './doc-store-types.js'
import type { DocStoreMetrics } from './metrics.js'
import type { ApplyRemote, OpenDoc } from './open-doc.js'
import type { SyncResult } from './sync.js'
import type { RateLimiter } from './gossip-guard.js'
import type { Message } from '@libp2p/gossipsub'
import type { PeerId } from '@libp2p/interface'

const log = logger('jobmesh:crdt')

export interface GossipReceiverComponents {
  counters?: DocStoreComponents['counters']
  metrics: DocStoreMetrics
  docs: Map<string, OpenDoc>
  maxUpdateBytes: number
  pendingPullIntervalMs: number
  admitted: Admitted
  updateAdmitted: UpdateAdmitted
  applyRemote: ApplyRemote
  /** Updates held back (`later`) each relay may bring before they are rejected (`heldBackBudget`); default: no bound. */
  heldBack?: RateLimiter
  /** The store's `sync`: pulls what a gossiped update depends on. */
  sync(name: string, peer: PeerId, options: SyncOptions): Promise<SyncResult>
}

/** Updates received on doc topics (docs/crdt.md, Gossip and Gossip validation). */
export interface GossipReceiver {
  /** The gossipsub validator of an open doc's topic; `relay`: the peer that sent the message here. */
  validateGossip(entry: OpenDoc, msg: Message, relay?: PeerId): Promise<TopicValidatorResult>
  /** The pubsub 'message' listener (applies updates of doc topics without a validator). */
  onMessage(evt: CustomEvent<Message>): void
}

export function createGossipReceiver (components: GossipReceiverComponents): GossipReceiver {
  const { metrics } = components

  /**
   * The gossipsub validator of a doc topic: runs before a message is delivered or forwarded. Cheap checks first
   * (rate, size, framing, Yjs decoding), then admission of the sender, then the update is applied through the doc's
   * guard. Anything invalid is rejected: not applied, not forwarded, and the sender's peer score falls.
   */
  async function validateGossip (entry: OpenDoc, msg: Message, relay?: PeerId): Promise<TopicValidatorResult> {
    const reject = (counter?: 'gossipOversized' | 'gossipMalformed' | 'gossipUnauthorized'): TopicValidatorResult => {
      metrics.gossipRejected++
      if (counter != null) metrics[counter]++
      return TopicValidatorResult.Reject
    }
    const data = msg.data
    countReceived(components.counters, 'doc', data.length, msg.type === 'signed')
    if (msg.type !== 'signed') return reject('gossipMalformed')
    const from = msg.from.toString()
    const rate = entry.rate.take(from)
    if (rate !== 'ok') {
      metrics.gossipRateLimited++
      return rate === 'abusive' ? reject() : TopicValidatorResult.Ignore
    }
    if (data.length > components.maxUpdateBytes + 1) return reject('gossipOversized')
    if (data.length < 2 || data[0] !== GOSSIP_UPDATE_VERSION) {
      metrics.updatesRejected++
      return reject('gossipMalformed')
    }
    const update = data.subarray(1)
    try {
      // parse fully before touching the doc, so garbage never reaches the store
      Y.decodeUpdate(update)
    } catch {
      metrics.updatesRejected++
      return reject('gossipMalformed')
    }
    if (!(await components.admitted(from, entry.name))) return reject('gossipUnauthorized')
    const verdict = await components.updateAdmitted(from, entry.name, update)
    if (verdict === 'no') return reject('gossipUnauthorized')
    if (verdict === 'later' || verdict === 'failed') {
      metrics.gossipUnauthorized++
      // held back without penalty, within what the relay may bring of such updates (docs/crdt.md, Gossip validation);
      // a check that failed blames nobody
      if (verdict === 'failed' || relay == null || components.heldBack == null) return TopicValidatorResult.Ignore
      return components.heldBack.take(relay.toString()) === 'ok' ? TopicValidatorResult.Ignore : reject()
    }
    if (components.docs.get(entry.name) !== entry) return TopicValidatorResult.Ignore
    const result = components.applyRemote(entry, update, ORIGIN_GOSSIP)
    if (result === 'failed') return reject('gossipMalformed')
    // a forbidden update was applied (then healed): what it left pending is pulled all the same
    pullIfPending(entry, msg.from)
    if (result === 'forbidden') return reject()
    return TopicValidatorResult.Accept
  }

  function onMessage (evt: CustomEvent<Message>): void {
    const msg = evt.detail
    const name = docNameOfTopic(msg.topic)
    if (name == null) return
    const entry = components.docs.get(name)
    // with a topic validator the update was checked and applied before gossipsub delivered it
    if (entry == null || entry.unguard != null) return
    const data = msg.data
    countReceived(components.counters, 'doc', data.length, msg.type === 'signed')
    if (data.length < 2 || data[0] !== GOSSIP_UPDATE_VERSION) {
      metrics.updatesRejected++
      return
    }
    const update = data.subarray(1)
    try {
      // parse fully before touching the doc, so garbage never reaches the store
      Y.decodeUpdate(update)
    } catch {
      metrics.updatesRejected++
      return
    }
    if (components.applyRemote(entry, update, ORIGIN_GOSSIP) !== 'failed' && msg.type === 'signed') {
      pullIfPending(entry, msg.from)
    }
  }

  /**
   * Gossip is not replayed: an update published before we subscribed (or before its publisher saw our
   * subscription) never arrives, and Yjs then holds every later update that depends on it as pending. When that
   * happens, pull a diff from the peer that published the update (at most once per interval per peer).
   */
  function pullIfPending (entry: OpenDoc, from: PeerId): void {
    const store = entry.doc.store
    if (store.pendingStructs == null && store.pendingDs == null && entry.deletedAhead !== true) return
    const peer = from.toString()
    const now = Date.now()
    // a deletion dropped ahead is kept owed until a pull starts (a pull skipped here is asked of the next sender)
    if (now - (entry.pendingPulls.get(peer) ?? -Infinity) < components.pendingPullIntervalMs) return
    entry.deletedAhead = false
    entry.pendingPulls.set(peer, now)
    metrics.pendingPulls++
    log('%s has missing dependencies after an update from %p: pulling', entry.name, from)
    components.sync(entry.name, from, { push: false }).catch(err => {
      log('pull of %s from %p failed: %e', entry.name, from, err)
    })
  }

  return { validateGossip, onMessage }
}
