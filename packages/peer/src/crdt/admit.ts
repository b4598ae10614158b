import { logger } from '@libp2p/logger'
import type { DocStoreInit } from './doc-store-types.js'
import type { DocStoreMetrics } from './metrics.js'
import type { PeerId } from '@libp2p/interface'

const log = logger('jobmesh:crdt')

/** Whether a peer may write and sync a doc; never throws (a failing check refuses). */
export type Admitted = (peer: string, name: string) => Promise<boolean>

/**
 * Whether a remote update of a peer admitted to a doc may be applied: `yes`; `no` (refused: a gossiped one is
 * rejected and costs its sender score); `later` (not now, e.g. the chain does not show yet what it names: a gossiped
 * one is ignored, without a penalty). A sync diff is applied only on `yes`.
 */
export type UpdateVerdict = 'yes' | 'no' | 'later'

/**
 * The store's `admitUpdate`, never throwing: a failing check says `failed` (it may be a chain read that failed),
 * which counts as `later` except that nobody is blamed for it (a relay's budget of held-back updates is not spent).
 */
export type UpdateAdmitted = (peer: string, name: string, update: Uint8Array) => Promise<UpdateVerdict | 'failed'>

export interface AdmitComponents {
  peerId: PeerId
  /** The store's init (its `admit` and `admitUpdate`). */
  init: Pick<DocStoreInit, 'admit' | 'admitUpdate'>
}

/** The store's admission check: every peer when no `admit` is set, and always this peer itself. */
export function admissionCheck (components: AdmitComponents): Admitted {
  return async (peer, name) => {
    if (components.init.admit == null || peer === components.peerId.toString()) return true
    try {
      return await components.init.admit(peer, name)
    } catch (err) {
      log('admission of %s to %s failed: %e', peer, name, err)
      return false
    }
  }
}

/** The store's check of an update's content: every update when no `admitUpdate` is set, and this peer's own. */
export function updateCheck (components: AdmitComponents): UpdateAdmitted {
  return async (peer, name, update) => {
    if (components.init.admitUpdate == null || peer === components.peerId.toString()) return 'yes'
    try {
      return await components.init.admitUpdate(peer, name, update)
    } catch (err) {
      log('admission of an update of %s from %s failed: %e', name, peer, err)
      return 'failed'
    }
  }
}

/**
 * A diff the other side of a sync sent that is not to be applied (it is not admitted to the doc, or its content is
 * refused): dropped, counted and logged; the exchange goes on (so: true, the answer of an applied diff).
 */
export function dropped (metrics: Pick<DocStoreMetrics, 'syncRefused'>, name: string, peer: string, update: Uint8Array): true {
  metrics.syncRefused++
  log('dropped a diff of %d bytes from %s, not admitted to %s', update.length, peer, name)
  return true
}
