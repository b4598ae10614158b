/**
 * @packageDocumentation
 *
 * `@jobmesh/testkit` (private, never published): what the package tests, the end-to-end tests and the benches share
 * and the product must not ship. Today: {@link testExecutor}, a deterministic MicroJob executor standing for remote
 * compute (a timer), for processors built without WebAssembly.
 *
 * @example
 * ```ts
 * import { testExecutor } from '@jobmesh/testkit'
 * const processor = createProcessor({ ...node, docs }, { executor: testExecutor({ workMs: 50 }) })
 * ```
 */
export { testExecutor } from './test-executor.js'
