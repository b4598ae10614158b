/**
 * @packageDocumentation
 *
 * The processor loop (DESIGN 7): join `/jobmesh/1/jobs`, pick the best open job (`chooseJob`), join or create
 * MacroJob rooms, take MicroJobs from the queue when this peer owns it, run them through a pluggable
 * {@link MicroJobExecutor}, write signed results to the job doc, publish "MicroJob complete", and call
 * `onJobComplete` on the peer that completed the job.
 *
 * @example
 * ```ts
 * const node = await createNode()
 * const docs = createDocStore(node)
 * const processor = createProcessor({ ...node, docs }, { executor: wasmMicroJobExecutor({ store, executor: createWasmExecutor() }) })
 * await processor.start()
 * await processor.announceJob(spec, jobId, specCid)
 * ```
 */
export { createProcessor } from './processor.js'
export type {
  Processor, KnownJobSummary, RetiredAs, ProcessorComponents, ProcessorInit, ProcessorEvents, MicroJobStartDetail
} from './processor.js'
export { runTimeoutMs } from './poison.js'
export {
  DEFAULT_DISCOVERY_MS, DEFAULT_IDLE_MS, DEFAULT_WANT, DEFAULT_ANNOUNCEMENT_TTL_MS
} from './constants.js'
