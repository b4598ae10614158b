/**
 * @packageDocumentation
 *
 * `@jobmesh/testkit` (private, never published): what the package tests, the end-to-end tests and the benches share
 * and the product must not ship.
 *
 * - {@link waitFor}: the one polling wait, with a deadline and an AbortSignal ({@link WaitTimeoutError}).
 * - {@link testJob}: a coordination job spec with a random seed and id.
 * - {@link startPeers} / {@link stopPeers} / {@link waitForMesh}: in-process peers on loopback with processors.
 * - {@link testExecutor}: a deterministic MicroJob executor standing for remote compute (a timer).
 * - {@link heldDone} / {@link heldResults}: the results of a job round in the MacroJob docs a peer holds.
 * - {@link patternBytes}: test content that no chunk of it repeats.
 * - {@link stopList}: what a test file started, stopped after each test, the newest first.
 *
 * @example
 * ```ts
 * import { startPeers, stopPeers, testJob, waitFor, waitForMesh } from '@jobmesh/testkit'
 * const peers = await startPeers(3)
 * await waitForMesh(peers)
 * const job = testJob(2, 8)
 * // announce job.spec, start the processors, then:
 * const done = (p) => heldDone(p.docs, job.jobId, 2).size
 * await waitFor(() => peers.every(p => done(p) === 16), { timeoutMs: 20_000, what: 'every result synced' })
 * await stopPeers(peers)
 * ```
 */
export { WaitTimeoutError } from './errors.js'
export { startPeers, stopPeers, waitForMesh } from './peers.js'
export type { TestPeer } from './peers.js'
export { testExecutor } from './test-executor.js'
export { testJob, TEST_SPEC_CID } from './job-spec.js'
export type { TestJob } from './job-spec.js'
export { waitFor } from './wait-for.js'
export { heldDone, heldResults } from './round-results.js'
export { patternBytes } from './pattern-bytes.js'
export { closedPort } from './closed-port.js'
export { stopList } from './stop-list.js'
export type { StopList, Stoppable } from './stop-list.js'
export type { Check, WaitForOptions } from './wait-for.js'
