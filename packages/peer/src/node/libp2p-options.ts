import { noise } from '@chainsafe/libp2p-noise'
import { yamux } from '@chainsafe/libp2p-yamux'
import { bootstrap } from '@libp2p/bootstrap'
import { gossipsub } from '@libp2p/gossipsub'
import { identify, identifyPush } from '@libp2p/identify'
import { kadDHT, passthroughMapper } from '@libp2p/kad-dht'
import { mdns } from '@libp2p/mdns'
import { ping } from '@libp2p/ping'
import { tcp } from '@libp2p/tcp'
import { webSockets } from '@libp2p/websockets'
import {
  BOOTSTRAP_TAG, DEFAULT_BOOTSTRAP_DELAY_MS, DEFAULT_GOSSIP_D, DEFAULT_GOSSIP_DHI, DEFAULT_GOSSIP_DLAZY, DEFAULT_GOSSIP_IDONTWANT_MIN_BYTES, DEFAULT_GOSSIP_DLO,
  DEFAULT_COLOCATION_WHITELIST, DEFAULT_CONNECTION_PING_MS, DEFAULT_GOSSIP_DOUT, DEFAULT_GOSSIP_HEARTBEAT_MS, DEFAULT_INBOUND_CONNECTION_THRESHOLD, DHT_PROTOCOL
} from './constants.js'
import { fastMessageId } from './gossip-message-id.js'
import { CLIENT_AGENT } from '../protocol/index.js'
import type { NodeServices } from './types.js'
import type { GossipsubOpts } from '@libp2p/gossipsub'
import type { PrivateKey } from '@libp2p/interface'
import type { Datastore } from 'interface-datastore'
import type { Libp2pOptions } from 'libp2p'

export interface Libp2pOptionsInit {
  privateKey: PrivateKey
  datastore: Datastore
  listen: string[]
  bootstrap: string[]
  mdns: boolean
  dhtClientMode: boolean
  role: 'peer' | 'client'
  gossipsub?: Partial<GossipsubOpts>
  metrics?: Libp2pOptions['metrics']
}

/**
 * The libp2p configuration of a jobmesh node: TCP + WebSockets, noise, yamux, identify, ping, a private Kademlia
 * DHT (`/jobmesh/kad/1.0.0`, server mode, LAN addresses kept), gossipsub (StrictSign, small-mesh tuning) and
 * peer discovery from the bootstrap list (and mDNS when asked). No public bootstrappers, relays or autoNAT.
 */
export function libp2pOptions (init: Libp2pOptionsInit): Libp2pOptions<NodeServices> & { privateKey: PrivateKey } {
  const peerDiscovery: NonNullable<Libp2pOptions<NodeServices>['peerDiscovery']> = []
  if (init.bootstrap.length > 0) {
    peerDiscovery.push(bootstrap({ list: init.bootstrap, timeout: DEFAULT_BOOTSTRAP_DELAY_MS, tagName: BOOTSTRAP_TAG }))
  }
  if (init.mdns) {
    peerDiscovery.push(mdns())
  }
  return {
    privateKey: init.privateKey,
    datastore: init.datastore,
    ...(init.metrics == null ? {} : { metrics: init.metrics }),
    ...(init.role === 'client' ? { nodeInfo: { userAgent: CLIENT_AGENT } } : {}),
    addresses: { listen: init.listen },
    transports: [tcp(), webSockets()],
    connectionEncrypters: [noise()],
    streamMuxers: [yamux()],
    connectionManager: { inboundConnectionThreshold: DEFAULT_INBOUND_CONNECTION_THRESHOLD },
    connectionMonitor: { pingInterval: DEFAULT_CONNECTION_PING_MS },
    peerDiscovery,
    services: {
      identify: identify(),
      // protocols registered after a connection opened (helia's bitswap starts after libp2p, and a restarted node
      // redials its kept-alive peers at once) must reach the other side, or its topologies never see this node
      identifyPush: identifyPush(),
      ping: ping(),
      dht: kadDHT({
        protocol: DHT_PROTOCOL,
        // every peer of a jobmesh LAN is dialable, so all of them serve the DHT and keep private addresses
        clientMode: init.dhtClientMode,
        peerInfoMapper: passthroughMapper,
        allowQueryWithZeroPeers: true
      }),
      pubsub: gossipsub({
        globalSignaturePolicy: 'StrictSign',
        fastMsgIdFn: fastMessageId,
        emitSelf: false,
        allowPublishToZeroTopicPeers: true,
        ignoreDuplicatePublishError: true,
        floodPublish: true,
        heartbeatInterval: DEFAULT_GOSSIP_HEARTBEAT_MS,
        D: DEFAULT_GOSSIP_D,
        Dlo: DEFAULT_GOSSIP_DLO,
        Dhi: DEFAULT_GOSSIP_DHI,
        Dout: DEFAULT_GOSSIP_DOUT,
        Dlazy: DEFAULT_GOSSIP_DLAZY,
        idontwantMinDataSize: DEFAULT_GOSSIP_IDONTWANT_MIN_BYTES,
        scoreParams: { IPColocationFactorWhitelist: new Set(DEFAULT_COLOCATION_WHITELIST) },
        ...init.gossipsub
      })
    }
  }
}
