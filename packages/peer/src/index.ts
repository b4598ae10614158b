/**
 * @packageDocumentation
 *
 * The jobmesh node.
 *
 * - `protocol/`: the pure protocol core (ids, slicing, Merkle trees, pricing, weights, QoS, task queue, signed
 *   records), re-exported by `@jobmesh/dapp-sdk`.
 * - `node/`: libp2p 3 + helia 7, persisted under a data dir (`createNode`).
 * - `crdt/`: the Yjs doc store, gossip + sync protocol + persistence (`createDocStore`, `signedMap`).
 * - `coord/`: leases, MacroJob rooms and the MicroJob queue handoff.
 * - `processor/`: the processor loop (`createProcessor`) over a pluggable `MicroJobExecutor`.
 * - `executor/`: the WebAssembly executor (`createWasmExecutor`).
 * - `storage/`: ipfs/https/file content with block-range reads, outputs into helia.
 * - `chain/`: the NodeRegistry/JobEscrow client; `settlement/`: finalization, verification, claims.
 * - `observe/`: typed peer events, Prometheus metrics, the network view and job stories (`describeJob`).
 * - `http/`: the peer's HTTP listener: dashboard, live state (SSE), `/metrics`.
 * - `createPeer(init)`: all of the above composed into one running peer (what `jobmesh start` runs).
 */
export * from './protocol/index.js'
export * from './node/index.js'
export * from './crdt/index.js'
export * from './coord/index.js'
export * from './processor/index.js'
export * from './executor/index.js'
export * from './storage/index.js'
export * from './chain/index.js'
export * from './settlement/index.js'
export * from './replication/index.js'
export * from './observe/index.js'
export * from './http/index.js'
export { createPeer } from './peer.js'
export type { Peer, PeerInit, PeerChainInit, PeerStatus } from './peer.js'
export * from './devnet/index.js'
