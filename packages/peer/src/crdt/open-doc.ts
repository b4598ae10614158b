import { logger } from '@libp2p/logger'
import * as Y from 'yjs'
import { ORIGIN_SYNC_PULL } from './origins.js'
import { applyGuarded, heal } from './update-guard.js'
import type { RateLimiter } from './gossip-guard.js'
import type { DocStoreMetrics } from './metrics.js'
import type { DocPersistence } from './persistence.js'
import type { DocStoreInit } from './doc-store-types.js'

const log = logger('jobmesh:crdt')

/** The store's state of one open doc. */
export interface OpenDoc {
  name: string
  topic: string
  doc: Y.Doc
  persistence: DocPersistence
  toPublish: Uint8Array[]
  /** Peer a pushed diff came from: not pushed back to it when too big for gossip. */
  pushSource?: string
  toPersist: Uint8Array[]
  flushScheduled: boolean
  /** Serial chain of datastore writes and publishes. */
  chain: Promise<void>
  dirtySinceCompaction: boolean
  /** Peers a full exchange (both directions) completed with on their current connection. */
  synced: Set<string>
  /** Exchanges this peer is answering, per initiating peer. */
  serving: Map<string, Promise<void>>
  /**
   * Updates this store published (its writes, the pushed diffs it re-broadcast), plus one for a stored state: what a
   * subscriber it did not know yet when it published may lack.
   */
  published: number
  /** Per peer on its current connection: `published` as it was when a diff of ours last reached that peer. */
  sentTo: Map<string, number>
  /** Last pull per peer started because a gossiped update left the doc with missing dependencies. */
  pendingPulls: Map<string, number>
  /** The last remote update deleted clocks the doc does not hold yet (dropped, {@link dropDeletesAhead}): pull its sender. */
  deletedAhead?: boolean
  rate: RateLimiter
  /** Its topic is subscribed: false while the doc is open for reading only (`OpenOptions.follow`). */
  followed: boolean
  /** Set when the doc topic has a gossipsub validator (it applies the updates; 'message' events are only counted). */
  unguard?: () => void
  onUpdate(update: Uint8Array, origin: unknown): void
}

/** The state of a doc the store opens: these fields, and nothing queued, synced or sent yet. */
export function openDocEntry (fields: Pick<OpenDoc, 'name' | 'topic' | 'doc' | 'persistence' | 'published' | 'rate' | 'onUpdate'>): OpenDoc {
  return {
    ...fields,
    toPublish: [],
    toPersist: [],
    flushScheduled: false,
    chain: Promise.resolve(),
    dirtySinceCompaction: false,
    synced: new Set(),
    serving: new Map(),
    pendingPulls: new Map(),
    sentTo: new Map(),
    followed: false
  }
}

/** Records that a diff taken when `entry.published` was `published` reached `peer`. */
export function noteSent (entry: OpenDoc, peer: string, published: number): void {
  entry.sentTo.set(peer, Math.max(published, entry.sentTo.get(peer) ?? 0))
}

/** Whether this store published something since its last diff that reached `peer` (which may then lack it). */
export function owesPeer (entry: OpenDoc, peer: string): boolean {
  return entry.published > (entry.sentTo.get(peer) ?? 0)
}

/** How a remote update went: applied, applied with forbidden changes (undone), or refused by Yjs. */
/** `healed`: forbidden changes were undone that the update did not write (its sender is not to blame, update-guard.ts). */
export type ApplyResult = 'applied' | 'forbidden' | 'healed' | 'failed'

/** Applies a remote update to an open doc. */
export type ApplyRemote = (entry: OpenDoc, update: Uint8Array, origin: symbol) => ApplyResult

export interface RemoteApplyComponents {
  metrics: DocStoreMetrics
  /** The store's init (its `guards`). */
  init: Pick<DocStoreInit, 'guards'>
  /** The store's update handler (persist, re-broadcast). */
  onDocUpdate(entry: OpenDoc, update: Uint8Array, origin: unknown): void
}

/**
 * Applies a remote update; counts it, never throws. Updates that are not re-broadcast (gossip, pulled diffs) are
 * applied with the store's update listener detached and persisted as received: Yjs then does not re-encode what
 * it integrated (for a 100 000-MicroJob catch-up that re-encoding is about a third of the apply time).
 */
export function remoteApplier (components: RemoteApplyComponents): ApplyRemote {
  const { metrics } = components
  return (entry, update, origin) => {
    const guard = components.init.guards?.(entry.name)
    entry.doc.off('update', entry.onUpdate)
    let attached = false
    try {
      let forbidden: ReturnType<typeof applyGuarded> = []
      const changed = changesDoc(entry.doc, () => {
        forbidden = guard == null ? [] : applyGuarded(entry.doc, update, origin, guard)
        if (guard == null) Y.applyUpdate(entry.doc, update, origin)
        entry.deletedAhead = dropDeletesAhead(entry.doc)
      })
      metrics.updatesApplied++
      entry.doc.on('update', entry.onUpdate)
      attached = true
      // a diff that brought nothing new (an empty push, or what gossip delivered first) is neither kept nor re-broadcast
      if (!changed) return 'applied'
      if (forbidden.length === 0) {
        // persisted as received; a pushed diff is also re-broadcast
        components.onDocUpdate(entry, update, origin)
        return 'applied'
      }
      // never re-broadcast an update with forbidden changes; undo them with a local write every peer receives
      components.onDocUpdate(entry, update, ORIGIN_SYNC_PULL)
      // records back first: a deletion the update made may be allowed only with them (a lease goes with its holder's
      // result, which an item pending from another update had overwritten in the same transaction); re-judge those
      const records = forbidden.filter(c => c.action !== 'delete')
      const deletions = forbidden.filter(c => c.action === 'delete')
      if (records.length > 0) heal(entry.doc, records)
      const still = records.length > 0 && guard != null ? deletions.filter(c => !guard.allows(c, entry.doc)) : deletions
      if (still.length > 0) heal(entry.doc, still)
      forbidden = [...records, ...still]
      metrics.guardViolations += forbidden.length
      log('undid %d forbidden changes of %s (%s)', forbidden.length, entry.name,
        forbidden.slice(0, 4).map(c => `${c.action} ${c.map}/${c.key}${c.blameless === true ? ' (pending from another update)' : ''}`).join(', '))
      return forbidden.every(c => c.blameless === true) ? 'healed' : 'forbidden'
    } catch (err) {
      metrics.updatesRejected++
      log('rejected an update for %s: %e', entry.name, err)
      return 'failed'
    } finally {
      if (!attached) entry.doc.on('update', entry.onUpdate)
    }
  }
}

/**
 * Drops the deletions Yjs parked for clocks the doc does not hold yet (`store.pendingDs`); true when there were some.
 * Yjs would delete whatever those clocks bring later, inside the transaction that integrates them, where the guard
 * sees a key added and deleted at once, i.e. no change: one update with no struct and a delete set of another writer's
 * next 10^9 clocks erased all of that writer's later records (results, leases, finals, announcements) at every peer
 * that took it, and every heal of them. An honest early deletion (of an item not received yet) comes back with the
 * full delete set of the next diff from its writer, which the receiver pulls.
 */
export function dropDeletesAhead (doc: Y.Doc): boolean {
  if (doc.store.pendingDs == null) return false
  doc.store.pendingDs = null
  return true
}

/**
 * Whether `apply` changed `doc`: integrated an item or a deletion, or parked an update Yjs cannot integrate yet (its
 * missing dependencies). Read from the transactions' state vectors, so Yjs encodes no update for it.
 */
function changesDoc (doc: Y.Doc, apply: () => void): boolean {
  const { pendingStructs, pendingDs } = doc.store
  let changed = false
  const onTransaction = (tr: Y.Transaction): void => {
    if (tr.deleteSet.clients.size > 0 || !sameState(tr.beforeState, tr.afterState)) changed = true
  }
  doc.on('afterTransaction', onTransaction)
  try {
    apply()
  } finally {
    doc.off('afterTransaction', onTransaction)
  }
  return changed || doc.store.pendingStructs !== pendingStructs || doc.store.pendingDs !== pendingDs
}

function sameState (a: Map<number, number>, b: Map<number, number>): boolean {
  if (a.size !== b.size) return false
  for (const [client, clock] of a) if (b.get(client) !== clock) return false
  return true
}
