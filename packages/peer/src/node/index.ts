/**
 * @packageDocumentation
 *
 * The jobmesh node: libp2p 3 (TCP + WebSockets, noise, yamux, identify, ping, a private DHT, gossipsub) with
 * helia 7 (bitswap) on the same libp2p, persisted under a data dir:
 *
 * ```
 * <dataDir>/identity.key   Ed25519 private key, protobuf, mode 0600
 * <dataDir>/datastore/     LevelDB: peer store, DHT, helia metadata, CRDT updates
 * <dataDir>/blocks/        IPFS blocks (blockstore-fs)
 * ```
 *
 * @example
 * ```ts
 * const node = await createNode({ dataDir: '.jobmesh/a', bootstrap: ['/ip4/127.0.0.1/tcp/4001/p2p/12D3...'] })
 * const docs = createDocStore(node)
 * // ...
 * await docs.stop()
 * await node.stop()
 * ```
 */
export { createNode } from './node.js'
export { loadOrCreateIdentity } from './identity.js'
export { parseBootstrap } from './addresses.js'
export { connectedWithin } from './first-peer.js'
export type { NodeInit, JobmeshNode } from './node.js'
export type { NodeServices } from './types.js'
export { InvalidDataDirError, InvalidIdentityError, InvalidMultiaddrError, ListenError, NoPeerReachableError } from './errors.js'
export {
  DEFAULT_LISTEN, LAN_LISTEN, DHT_PROTOCOL, IDENTITY_FILE, DATASTORE_DIR, BLOCKSTORE_DIR,
  DEFAULT_GOSSIP_HEARTBEAT_MS, DEFAULT_GOSSIP_D, DEFAULT_GOSSIP_DLO, DEFAULT_GOSSIP_DHI, DEFAULT_JOIN_TIMEOUT_MS
} from './constants.js'
