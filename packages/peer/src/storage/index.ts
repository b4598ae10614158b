/**
 * @packageDocumentation
 *
 * Storage: a content store that reads `ipfs://` (helia + UnixFS, range reads), `https://` / `http://` (Range
 * requests) and `file://` (range reads) URIs and adds content to the node's blockstore (pinned). The MicroJob
 * executor (`wasmMicroJobExecutor` of `@jobmesh/peer/executor`) reads a job's code and data through it.
 *
 * @example
 * ```ts
 * const store = createContentStore({ helia: node.helia })
 * const cid = await store.addFile('data.bin')
 * const part = await store.fetch(`ipfs://${cid}`, { offset: 1024, length: 1024, signal: AbortSignal.timeout(10_000) })
 * ```
 */
export { createContentStore, rawBlockCid, rawOutputCid } from './content-store.js'
export type { ContentStore, ContentStoreComponents, ContentStoreInit, FetchOptions, AddOptions, PinOptions } from './content-store.js'
export { MAX_MODEL_PIN_BYTES, jobContentBounds, pinJobContent } from './job-content.js'
export type { JobContent, PinJobContentOptions } from './job-content.js'
export { jobInputs } from './job-inputs.js'
export { DEFAULT_MAX_DAG_BLOCKS, dagBlocks } from './dag-blocks.js'
export { collect } from './collect.js'
export type { JobInputs, JobInputsComponents } from './job-inputs.js'
export { parseContentUri } from './uri.js'
export type { ContentUri, ByteRange } from './uri.js'
export {
  UnsupportedUriError, ContentNotFoundError, ContentTooLargeError, ContentTimeoutError, ContentFetchError,
  InvalidRangeError, ForbiddenUriError
} from './errors.js'
// AbortError (name 'AbortError') is thrown too: the class of `@jobmesh/contracts`, shared by every package.
export {
  DEFAULT_MAX_FETCH_BYTES, DEFAULT_FETCH_TIMEOUT_MS, DEFAULT_RAW_BLOCK_MAX_BYTES, MAX_BLOCK_BYTES, SUPPORTED_SCHEMES
} from './constants.js'
