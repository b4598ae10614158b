import { withBitswap } from '@helia/bitswap'
import { generateKeyPair } from '@libp2p/crypto/keys'
import { logger } from '@libp2p/logger'
import { parseBootstrap, parseListen } from './addresses.js'
import { DEFAULT_LISTEN } from './constants.js'
import { ListenError } from './errors.js'
import { gossipRepair } from './gossip-repair.js'
import { createHeliaOnLibp2p } from './helia-light.js'
import { loadOrCreateIdentity } from './identity.js'
import { libp2pOptions } from './libp2p-options.js'
import { ensureDataDir, openStorage } from './storage.js'
import { withheldBlocks } from './withheld-blocks.js'
import type { GossipRepairInit } from './gossip-repair.js'
import type { NodeServices } from './types.js'
import type { HeliaWithLibp2p } from '@helia/libp2p'
import type { GossipSub, GossipsubOpts } from '@libp2p/gossipsub'
import type { Ed25519PrivateKey, Libp2p, PeerId } from '@libp2p/interface'
import type { Datastore } from 'interface-datastore'
import type { Libp2pOptions } from 'libp2p'
import type { CID } from 'multiformats/cid'

const log = logger('jobmesh:node')

export interface NodeInit {
  /**
   * Where identity, datastore and blocks live. Without it the node is in-memory with a fresh key (tests, tools).
   */
  dataDir?: string
  /** Listen multiaddrs. Default {@link DEFAULT_LISTEN} (loopback); the CLI passes {@link LAN_LISTEN}. */
  listen?: string[]
  /** Peers to dial at start, each with `/p2p/<peerId>`. No public bootstrappers are ever added. */
  bootstrap?: string[]
  /** Discover peers on the LAN with mDNS. Default false. */
  mdns?: boolean
  /** `client`: a DApp's node, which says so in its identify agent (`CLIENT_AGENT` of the protocol). Default `peer`. */
  role?: 'peer' | 'client'
  /** DHT client mode (queries only, does not serve). Default false: every LAN peer serves. */
  dhtClientMode?: boolean
  /** Gossipsub overrides (tests, benches). */
  gossipsub?: Partial<GossipsubOpts>
  /** libp2p's metrics component (e.g. `prometheusMetrics({ registry })`); none by default. */
  metrics?: Libp2pOptions['metrics']
  /** When a peer without this node's outbound gossipsub stream gets its connection renewed (`gossip-repair.ts`). */
  gossipRepair?: GossipRepairInit
}

export interface JobmeshNode {
  libp2p: Libp2p<NodeServices>
  helia: HeliaWithLibp2p<NodeServices>
  peerId: PeerId
  privateKey: Ed25519PrivateKey
  /** The datastore libp2p and helia use; the CRDT store keeps its updates here too. */
  datastore: Datastore
  /** The gossipsub service. */
  pubsub: GossipSub
  /**
   * Holds blocks back from every read of this node's blockstore, bitswap's serving to other peers included, until the
   * returned function is called (`node/withheld-blocks.ts`; while this node challenges a holder of content it holds).
   */
  withhold(cids: readonly CID[]): () => void
  /** Stops helia and libp2p, then closes the stores. Stop a DocStore built on this node first. */
  stop(): Promise<void>
}

/**
 * Creates and starts a jobmesh node: libp2p (see {@link libp2pOptions}) and helia 7 (bitswap) on top of it,
 * persisted under `init.dataDir`.
 */
export async function createNode (init: NodeInit = {}): Promise<JobmeshNode> {
  const listen = parseListen(init.listen ?? DEFAULT_LISTEN)
  const bootstrap = parseBootstrap(init.bootstrap ?? [])
  let privateKey: Ed25519PrivateKey
  if (init.dataDir != null) {
    await ensureDataDir(init.dataDir)
    privateKey = await loadOrCreateIdentity(init.dataDir)
  } else {
    privateKey = await generateKeyPair('Ed25519')
  }
  const storage = await openStorage(init.dataDir)
  const blocks = withheldBlocks(storage.blockstore)
  try {
    const helia = withBitswap(await createHeliaOnLibp2p({
      datastore: storage.datastore,
      blockstore: blocks.blockstore
    }, libp2pOptions({
      privateKey,
      datastore: storage.datastore,
      listen,
      bootstrap,
      mdns: init.mdns ?? false,
      dhtClientMode: init.dhtClientMode ?? false,
      role: init.role ?? 'peer',
      gossipsub: init.gossipsub,
      metrics: init.metrics
    })))
    await helia.start()
    const libp2p = helia.libp2p
    log('started %p on %s', libp2p.peerId, libp2p.getMultiaddrs().map(String).join(' '))
    const repair = gossipRepair({ libp2p, pubsub: libp2p.services.pubsub }, init.gossipRepair)
    let stopped = false
    return {
      libp2p,
      helia,
      peerId: libp2p.peerId,
      privateKey,
      datastore: storage.datastore,
      pubsub: libp2p.services.pubsub,
      withhold: blocks.withhold,
      stop: async () => {
        if (stopped) {
          return
        }
        stopped = true
        repair.stop()
        try {
          await helia.stop()
        } finally {
          await storage.close()
        }
      }
    }
  } catch (err) {
    await storage.close()
    if ((err as Error).name === 'UnsupportedListenAddressesError') throw listenError(err as Error)
    throw err
  }
}

/**
 * libp2p's error for the listen addresses it could not listen on, which lists each with its error's whole stack, as
 * one line per address: `/ip4/127.0.0.1/tcp/4001: Error: listen EADDRINUSE: address already in use 127.0.0.1:4001`.
 */
function listenError (err: Error): ListenError {
  const failed = err.message.split('\n').flatMap(line => {
    const m = /^\s+(\/\S+): (.+)$/.exec(line)
    return m == null ? [] : [`${m[1]}: ${m[2]}`]
  })
  // libp2p's own first line when its format changed and no address line was found
  return new ListenError(`cannot listen on ${failed.length === 0 ? `the listen addresses: ${err.message.split('\n')[0]}` : failed.join('; ')}`)
}
