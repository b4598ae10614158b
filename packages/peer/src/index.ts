/**
 * @packageDocumentation
 *
 * The jobmesh node, for people who run or embed one: `createPeer(init)` composes every part into one running peer
 * (what `jobmesh start` runs), with its init, status, events, metrics names, the executor it runs jobs with, the
 * errors it throws on start, and the path of the `jobmesh` CLI.
 *
 * The parts have their own entry points (one per folder, each its folder's `index.ts`; docs/architecture.md):
 * - `@jobmesh/peer/protocol`: the pure protocol core (ids, slicing, Merkle trees, pricing, weights, QoS, task queue,
 *   signed records), re-exported by `@jobmesh/dapp-sdk`.
 * - `@jobmesh/peer/devnet`: a whole network on one machine (anvil, contracts, N `jobmesh start` processes).
 * - `@jobmesh/peer/node`: libp2p 3 + helia 7, persisted under a data dir (`createNode`).
 * - `@jobmesh/peer/crdt`: the Yjs doc store, gossip + sync protocol + persistence (`createDocStore`, `signedMap`).
 * - `@jobmesh/peer/coord`: leases, MacroJob rooms and the MicroJob queue handoff.
 * - `@jobmesh/peer/processor`: the processor loop (`createProcessor`) over a pluggable `MicroJobExecutor`.
 * - `@jobmesh/peer/executor`: the WebAssembly executor (`createWasmExecutor`).
 * - `@jobmesh/peer/storage`: ipfs/https/file content with block-range reads, outputs into helia.
 * - `@jobmesh/peer/settlement`: finalization (over the chain client of `@jobmesh/contracts`),
 *   verification, claims; `@jobmesh/peer/replication`: output replicas.
 * - `@jobmesh/peer/observe`: typed peer events, Prometheus metrics, the network view and job stories (`describeJob`).
 */
export { createPeer } from './peer.js'
export type { Peer, PeerInit, PeerChainInit, PeerStatus } from './peer.js'
export type { WorkCounters } from './peer-status.js'
export { CLI_BIN } from './devnet/index.js'

// what a peer's init and fields are made of
export type { NodeInit, JobmeshNode } from './node/index.js'
export type { DocStore } from './crdt/index.js'
export type { ContentStore } from './storage/index.js'
export type { MicroJobExecutor } from './executor/index.js'
export type { Processor, ProcessorInit } from './processor/index.js'
export type { ChainClient } from '@jobmesh/contracts'
export type { Settlement, SettlementInit } from './settlement/index.js'
export type { HttpAddress, HttpServer } from './http/index.js'
export type { PricingParams } from './protocol/index.js'
export type { Deployment } from '@jobmesh/contracts'

// the executor a peer runs jobs with, for `init.executor`
export { createWasmExecutor, outputHash } from './executor/index.js'
export type { WasmExecutor, WasmExecutorInit } from './executor/index.js'
export { wasmMicroJobExecutor } from './executor/index.js'

// what a running peer reports
export { EventLog, METRIC_NAMES } from './observe/index.js'
export type { PeerEvent, PeerEventKind, EventLogEvents, AccountView, DescribeOptions, JobStory } from './observe/index.js'

// what createPeer throws when its init or its chain is wrong
export { InvalidDataDirError, InvalidIdentityError, InvalidMultiaddrError, NoPeerReachableError } from './node/index.js'
export {
  ChainRevertError, RpcUnreachableError, ChainTimeoutError, ChainRequestError, InsufficientFundsError
} from '@jobmesh/contracts'
export { InvalidHttpAddressError } from './http/index.js'
