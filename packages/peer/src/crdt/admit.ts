import { logger } from '@libp2p/logger'
import type { DocStoreInit } from './doc-store-types.js'
import type { PeerId } from '@libp2p/interface'

const log = logger('jobmesh:crdt')

/** Whether a peer may write and sync a doc; never throws (a failing check refuses). */
export type Admitted = (peer: string, name: string) => Promise<boolean>

export interface AdmitComponents {
  peerId: PeerId
  /** The store's init (its `admit`). */
  init: Pick<DocStoreInit, 'admit'>
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
