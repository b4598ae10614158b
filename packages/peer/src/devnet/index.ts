/**
 * @packageDocumentation
 *
 * A whole jobmesh network on one machine: an anvil chain, the contracts, and N real `jobmesh start` processes
 * (`jobmesh devnet`, the demo and the end-to-end tests use it).
 *
 * @example
 * ```ts
 * const devnet = await startDevnet({ peers: 4 })
 * // devnet.anvil.rpcUrl, devnet.deployment, devnet.bootstrap, devnet.dapp.privateKey
 * await devnet.stop()
 * ```
 */
export { startDevnet } from './devnet.js'
export type { Devnet, DevnetInit, DevnetPeerOptions } from './devnet.js'
export { spawnPeer, CLI_BIN } from './peer-process.js'
export type { PeerProcess, SpawnPeerInit } from './peer-process.js'
export { DevnetPeerError, TooManyPeersError } from './errors.js'
export * from './constants.js'
