import type { ChainClient } from '@jobmesh/contracts'
import type { JobSpec } from '../protocol/index.js'
import type { MicroJobExecutor } from '../executor/index.js'
import type { ContentStore } from '../storage/index.js'
import type { DutyJournal } from './journal.js'
import type { PrivateKey } from '@libp2p/interface'
import type * as Y from 'yjs'

/** The doc store as settlement uses it (`createDocStore(node)` fits). */
export interface SettlementDocs {
  /**
   * `offline`: load the doc without the catch-up exchange with the connected peers. `follow: false`: read it without
   * subscribing (DocStore's `OpenOptions.follow`): settlement pulls what it needs of a round's MacroJob docs.
   */
  open(name: string, options?: { signal?: AbortSignal, offline?: boolean, follow?: boolean }): Promise<Y.Doc>
  /** Exchanges the doc with every connected peer (DocStore.confirm): a verifier pulls the evidence it lacks. */
  confirm?(name: string, options?: { timeoutMs?: number, signal?: AbortSignal }): Promise<unknown>
  /** One exchange of the doc with one peer, dialled by PeerId (DocStore.sync): a verifier pulls from the submitter. */
  sync?(name: string, peer: string, options?: { push?: boolean, timeoutMs?: number, signal?: AbortSignal }): Promise<unknown>
}

/** Finds a job's spec; the default reads `ipfs://<specCid>` of the job's `JobCreated` event. */
export type SpecLoader = (jobId: string, options: { signal?: AbortSignal }) => Promise<JobSpec>

/** What the settlement steps use. Each step takes only the parts it needs. */
export interface SettlementComponents {
  docs: SettlementDocs
  chain: ChainClient
  store: Pick<ContentStore, 'addBytes' | 'addOutput' | 'fetch'>
  /** The peer's libp2p key: signs the `final` record and the profile. */
  privateKey: PrivateKey
  /** Re-runs sampled MicroJobs (verifiers) and regenerates unavailable outputs (finalizer): the WASM adapter. */
  executor?: MicroJobExecutor
  loadSpec?: SpecLoader
  /** Where duties that must survive a restart are kept (`datastoreJournal(node.datastore)`); none: in memory only. */
  journal?: DutyJournal
  /**
   * Has other peers hold the manifest and the outputs before `submitResults` (`replicateOutputs`); `manifest.outputs`
   * are the outputs' CIDs (a holder proves it holds blocks of them and of the manifest), `producers` the signers of the
   * manifest's results. Without it only this node holds them.
   */
  replicate?(jobId: string, manifest: { cid: string, outputs: string[] }, producers: string[], options: { signal?: AbortSignal }): Promise<unknown>
}

export interface SettlementOptions {
  signal?: AbortSignal
  /** Poll interval (ms), default 1 000. */
  pollMs?: number
  /** Timeout of each wait (ms), default 30 min. */
  phaseTimeoutMs?: number
  /** Finalizer: how long one output may take to arrive before it is regenerated (ms), default 10 000. */
  outputFetchTimeoutMs?: number
}
