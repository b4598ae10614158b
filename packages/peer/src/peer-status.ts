import type { JobmeshNode } from './node/index.js'
import type { Processor } from './processor/index.js'

export interface WorkCounters {
  microJobsDone: number
  microJobsFailed: number
  ownerships: number
}

/** A running peer's state, as `jobmesh status` prints it. */
export interface PeerStatus {
  peerId: string
  addresses: string[]
  uptimeMs: number
  gpuModel?: string
  vramGb: number
  peers: Array<{ peerId: string, addresses: string[] }>
  jobs: Array<{ jobId: string, microJobs: number, value: number, state: string }>
  work: WorkCounters & { currentJob?: string }
  chain?: { address: string, registered: boolean }
}

export interface PeerStatusInput {
  node: JobmeshNode
  processor?: Processor
  work: WorkCounters
  startedAt: number
  init: { gpuModel?: string, vramGb?: number }
  chainAddress?: string
}

/** Reads the peer's current state (cheap: no network). */
export function peerStatus (input: PeerStatusInput): PeerStatus {
  const { node, processor } = input
  return {
    peerId: node.peerId.toString(),
    addresses: node.libp2p.getMultiaddrs().map(String),
    uptimeMs: Date.now() - input.startedAt,
    gpuModel: input.init.gpuModel,
    vramGb: input.init.vramGb ?? 0,
    peers: node.libp2p.getConnections().map(c => ({ peerId: c.remotePeer.toString(), addresses: [c.remoteAddr.toString()] })),
    jobs: processor?.knownJobs().map(j => ({ jobId: j.jobId, microJobs: j.microJobs, value: j.value, state: j.state })) ?? [],
    work: { ...input.work, currentJob: processor?.currentJob() },
    chain: input.chainAddress == null ? undefined : { address: input.chainAddress, registered: true }
  }
}
