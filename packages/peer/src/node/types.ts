import type { GossipSub } from '@libp2p/gossipsub'
import type { Identify, IdentifyPush } from '@libp2p/identify'
import type { KadDHT } from '@libp2p/kad-dht'
import type { Ping } from '@libp2p/ping'

/** The libp2p services every jobmesh node runs. */
export interface NodeServices extends Record<string, unknown> {
  identify: Identify
  identifyPush: IdentifyPush
  ping: Ping
  dht: KadDHT
  pubsub: GossipSub
}
