/**
 * @packageDocumentation
 *
 * `@jobmesh/testkit/anvil`: chains for tests that run under vitest. One anvil per test worker (and pooled block
 * time) started by the project's global setup, lent to one test at a time and reverted after it.
 *
 * @example
 * ```ts
 * import { registerNodes, startChain } from '@jobmesh/testkit/anvil'
 * const chain = await startChain({ accounts: 4, blockTime: 0.1 })
 * await registerNodes(chain.clients.slice(1), 10n ** 17n)
 * // ... createJob with chain.clients[0], settle with the others ...
 * await chain.stop() // in afterEach: the worker's anvil is reverted, not killed
 * ```
 */
export { workerAnvil } from './worker-anvil.js'
export { registerNodes, startChain } from './chain.js'
export type { NodeKey, TestChain, TestChainInit } from './chain.js'
export { TestWallet, testWallet } from './wallet.js'
export { flakyRpc } from './flaky-rpc.js'
export type { FlakyRpc, RpcCall } from './flaky-rpc.js'
export { AnvilRpcError } from '../errors.js'
