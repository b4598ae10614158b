import type { ChainConnection, DeploymentRef } from './chain/connection.js'
import type { JobDocHolds } from './job-docs.js'
import type { Announcer } from './network/announce.js'
import type { DocStore } from '@jobmesh/peer/crdt'
import type { ContentStore } from '@jobmesh/peer/storage'
import type { JobmeshNode } from '@jobmesh/peer/node'
import type { JobSpec } from '@jobmesh/peer/protocol'

/** Resolved timeouts and defaults of a client. */
export interface ClientSettings {
  rpcTimeoutMs: number
  txTimeoutMs: number
  confirmations: number
  docTimeoutMs: number
  fetchTimeoutMs: number
  pollIntervalMs: number
  releaseTimeoutMs: number
  downloadConcurrency: number
  inputReplicas: number
  replicationTimeoutMs: number
}

/** A job spec the client knows (submitted here, or fetched by the spec CID from the chain). */
export interface KnownSpec {
  spec: JobSpec
  specCid: string
}

/** What the operations that only read or write the escrow work with (`createEscrowClient`). */
export type ChainContext = Pick<ClientContext, 'chain'>

/** What every client operation works with. */
export interface ClientContext {
  node: JobmeshNode
  docs: DocStore
  /** The jobs whose docs an operation is using (closed when the last one ends). */
  jobDocs: JobDocHolds
  /** The peer's content store over the client's helia: uploads, the spec, manifests, outputs. */
  store: ContentStore
  chain: ChainConnection
  deployment: DeploymentRef
  announcer: Announcer
  /** Block the deployment started at (event scans start here). */
  fromBlock: number
  specs: Map<string, KnownSpec>
  settings: ClientSettings
  /** Aborts when the client stops. */
  stopped: AbortSignal
}
