// Temporary: @jobmesh/peer's public index does not re-export node/, crdt/, coord/, processor/ yet.
// Used only by packages/dapp-sdk/vitest.config.ts; delete once packages/peer/src/index.ts exports them.
export * from '../../peer/src/index.js'
export { createNode } from '../../peer/src/node/index.js'
export type { JobmeshNode, NodeInit } from '../../peer/src/node/index.js'
export { createDocStore, indexDocName, jobDocName } from '../../peer/src/crdt/index.js'
export type { DocStore } from '../../peer/src/crdt/index.js'
export {
  resultTable, leases, recordSigner, recordVerifier, JobProgress, ResultRecord, JobAnnouncement, decodeMessage,
  jobsTopic, INDEX_JOBS_MAP, RESULTS_MAP, MICRO_MAP, FINAL_MAP, microKey, resultKey, resultScope, microScope
} from '../../peer/src/coord/index.js'
export { createProcessor, testExecutor, ANNOUNCEMENT_DOMAIN } from '../../peer/src/processor/index.js'
export type { MicroJobExecutor } from '../../peer/src/processor/index.js'
export { decodeManifest, encodeManifest, manifestTrees } from '../../peer/src/settlement/index.js'
export type { Manifest } from '../../peer/src/settlement/index.js'
