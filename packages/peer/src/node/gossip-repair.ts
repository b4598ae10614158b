import { timeoutSignal } from '@jobmesh/contracts'
import { logger } from '@libp2p/logger'
import { DEFAULT_GOSSIP_REPAIR_GRACE_MS, DEFAULT_GOSSIP_REPAIR_INTERVAL_MS, GOSSIP_REDIAL_TIMEOUT_MS } from './constants.js'
import type { GossipSub } from '@libp2p/gossipsub'
import type { Libp2p, PeerId } from '@libp2p/interface'

const log = logger('jobmesh:node')

export interface GossipRepairComponents {
  libp2p: Pick<Libp2p, 'hangUp' | 'dial' | 'getConnections'>
  pubsub: Pick<GossipSub, 'getPeers'>
}

/** Protocol ids of gossipsub's streams (every version of meshsub). */
const GOSSIP_PROTOCOL_PREFIX = '/meshsub/'

export interface GossipRepairInit {
  /** How often the peers are looked at (ms). */
  intervalMs?: number
  /** How long a peer may be without an outbound gossipsub stream before its connection is renewed (ms). */
  graceMs?: number
}

export interface GossipRepair {
  stop(): void
}

/**
 * Mends gossipsub's one-shot outbound stream. gossipsub opens its stream to a peer once per connection and does not
 * try again when that fails (a loaded machine where the protocol negotiation timed out): the peer stays connected
 * and known to gossipsub, and yet gets nothing from this node, not even its subscriptions, so it never meshes with
 * it. A peer left without an outbound stream for `graceMs` has its connection closed and is dialled again; the new
 * connection opens a new stream.
 */
export function gossipRepair (components: GossipRepairComponents, init: GossipRepairInit = {}): GossipRepair {
  const { libp2p, pubsub } = components
  const graceMs = init.graceMs ?? DEFAULT_GOSSIP_REPAIR_GRACE_MS
  const missingSince = new Map<string, number>()

  /** Whether one of the peer's connections carries this node's gossipsub stream to it. */
  const hasOutbound = (peer: PeerId): boolean => libp2p.getConnections(peer).some(c =>
    c.streams.some(s => s.direction === 'outbound' && s.protocol?.startsWith(GOSSIP_PROTOCOL_PREFIX) === true))

  const renew = async (peer: PeerId): Promise<void> => {
    log('no gossipsub stream to %p for %d ms: renewing the connection', peer, graceMs)
    try {
      await libp2p.hangUp(peer)
      await libp2p.dial(peer, { signal: timeoutSignal(GOSSIP_REDIAL_TIMEOUT_MS) })
    } catch (err) {
      // a peer that cannot be dialled back (it dialled in) redials itself if it keeps the connection alive
      log('renewing the connection to %p failed: %e', peer, err)
    }
  }

  const check = (): void => {
    const now = Date.now()
    const missing = new Set<string>()
    for (const peer of pubsub.getPeers()) {
      if (hasOutbound(peer)) continue
      const id = peer.toString()
      missing.add(id)
      const since = missingSince.get(id) ?? now
      missingSince.set(id, since)
      if (now - since < graceMs) continue
      missingSince.delete(id)
      void renew(peer)
    }
    for (const id of missingSince.keys()) if (!missing.has(id)) missingSince.delete(id)
  }

  const timer = setInterval(check, init.intervalMs ?? DEFAULT_GOSSIP_REPAIR_INTERVAL_MS)
  timer.unref()
  return {
    stop () { clearInterval(timer) }
  }
}
