import type { JobmeshNode } from './node/index.js'
import type { Processor } from './processor/index.js'
import type { DocStoreMetrics } from './crdt/index.js'
import type { HeldModel } from './models/index.js'
import { incentiveJson } from './observe/index.js'
import type { AccountView, IncentiveJson } from './observe/index.js'
import type { QosScores } from '@jobmesh/contracts'
import type { OwnPause } from './settlement/index.js'

export interface WorkCounters {
  microJobsDone: number
  microJobsFailed: number
  ownerships: number
}

/** A running peer's state, as `jobmesh status` prints it. */
export interface PeerStatus {
  peerId: string
  /** The peer's OS process id (`kill`, a service manager's logs). */
  pid?: number
  addresses: string[]
  uptimeMs: number
  gpuModel?: string
  vramGb: number
  /**
   * Models this peer holds (jobs naming one are chosen first) and the one it last ran; of the held ones, those
   * fetched to run a job their holders left (`fallback`), prefetched on a prompt (`prompted`), and recorded on chain
   * (`announced`); each list only when not empty. `fetching`: models of `--model` not fetched yet (not held: jobs
   * naming them are not chosen first until they are); `givenUp`: models whose fetch could not succeed, with why.
   */
  models: {
    held: string[], loaded?: string, fallback?: string[], prompted?: string[], announced?: string[], fetching?: string[],
    givenUp?: Array<{ modelId: string, reason: string }>
  }
  peers: Array<{ peerId: string, addresses: string[] }>
  jobs: Array<{ jobId: string, microJobs: number, value: string, state: string }>
  work: WorkCounters & { currentJob?: string }
  /** The wallet; balance, stake, score and earnings (wei, decimal strings) only in `Peer.report()`. */
  chain?: {
    address: string, registered: boolean, balanceWei?: string, stakeWei?: string, earnedWei?: string, score?: string, qos?: QosScores, paused?: boolean
    /** It asked to exit (`jobmesh exit`); kicked out by the registry. */
    exiting?: boolean
    /** An exiting node: when `jobmesh withdraw` can take its stake back (unix seconds, chain time). */
    withdrawableAt?: number
    kickedOut?: boolean
    /**
     * Paused by the registry and left paused by this peer: it missed its verification tasks or probes `inARow` times
     * with no task scored between (the last in `pausedBlock`); a restart resumes it.
     */
    stayedPaused?: { cause: 'probe' | 'task', pausedBlock: number, inARow: number }
    /** Incentive share recorded and current (0..1), unclaimed incentive in wei (decimal string). */
    incentive?: IncentiveJson
    /** Why the wallet's standing could not be read (the chain unreachable): `registered` is then only what the start found. */
    error?: string
  }
  /** Jobs this peer is finalizing now (journaled: resumed after a restart). */
  finalizing?: string[]
  /**
   * CRDT docs open and gossipsub topics subscribed: what this peer follows. A job's are closed once it is released or
   * refunded on chain; its docs are still read from storage by whoever asks.
   */
  following?: { docs: number, topics: number }
  /** Hostile traffic this peer refused (docs/crdt.md, Gossip validation): doc topics, then coordination topics. */
  refused?: {
    gossipRejected: number
    gossipUnauthorized: number
    gossipOversized: number
    gossipMalformed: number
    gossipRateLimited: number
    guardViolations: number
    syncRefused: number
    coordRejected: number
    coordRateLimited: number
    /** Gossip (doc and coordination topics) dropped as replays of messages older than gossipsub's seen cache. */
    replayed: number
  }
}

export interface PeerStatusInput {
  node: JobmeshNode
  docs?: { metrics: DocStoreMetrics, names(): string[] }
  processor?: Processor
  work: WorkCounters
  startedAt: number
  init: { gpuModel?: string, vramGb?: number }
  /** The models held (default: none). */
  models?: HeldModel[]
  /** The models of `--model` being fetched (default: none). */
  fetchingModels?: string[]
  /** The models whose fetch was given up, with why (default: none). */
  givenUpModels?: Array<{ modelId: string, reason: string }>
  chainAddress?: string
  finalizing?: string[]
}

/** Reads the peer's current state (cheap: no network). */
export function peerStatus (input: PeerStatusInput): PeerStatus {
  const { node, processor } = input
  return {
    peerId: node.peerId.toString(),
    pid: process.pid,
    addresses: node.libp2p.getMultiaddrs().map(String),
    uptimeMs: Date.now() - input.startedAt,
    gpuModel: input.init.gpuModel,
    vramGb: input.init.vramGb ?? 0,
    models: modelsOf(input.models ?? [], processor?.loadedModel(), input.fetchingModels ?? [], input.givenUpModels ?? []),
    peers: connectedPeers(node),
    jobs: processor?.knownJobs().map(j => ({ jobId: j.jobId, microJobs: j.microJobs, value: j.value, state: j.state })) ?? [],
    work: { ...input.work, currentJob: processor?.currentJob() },
    chain: input.chainAddress == null ? undefined : { address: input.chainAddress, registered: true },
    ...(input.finalizing == null ? {} : { finalizing: input.finalizing }),
    ...(input.docs == null ? {} : { following: { docs: input.docs.names().length, topics: node.pubsub.getTopics().length } }),
    refused: input.docs == null
      ? undefined
      : {
          gossipRejected: input.docs.metrics.gossipRejected,
          gossipUnauthorized: input.docs.metrics.gossipUnauthorized,
          gossipOversized: input.docs.metrics.gossipOversized,
          gossipMalformed: input.docs.metrics.gossipMalformed,
          gossipRateLimited: input.docs.metrics.gossipRateLimited,
          guardViolations: input.docs.metrics.guardViolations,
          syncRefused: input.docs.metrics.syncRefused,
          coordRejected: processor?.metrics.rejected ?? 0,
          coordRateLimited: processor?.metrics.rateLimited ?? 0,
          replayed: input.docs.metrics.gossipReplayed + (processor?.metrics.droppedReplayed ?? 0)
        }
  }
}

/** Each connected peer once, with the remote address of every connection to it. */
function connectedPeers (node: JobmeshNode): PeerStatus['peers'] {
  const byPeer = new Map<string, string[]>()
  for (const c of node.libp2p.getConnections()) {
    const id = c.remotePeer.toString()
    const addrs = byPeer.get(id) ?? []
    const addr = c.remoteAddr.toString()
    if (!addrs.includes(addr)) addrs.push(addr)
    byPeer.set(id, addrs)
  }
  return [...byPeer].map(([peerId, addresses]) => ({ peerId, addresses }))
}

function modelsOf (models: HeldModel[], loaded: string | undefined, fetching: string[],
  givenUp: NonNullable<PeerStatus['models']['givenUp']>): PeerStatus['models'] {
  const out: PeerStatus['models'] = { held: models.map(m => m.modelId) }
  if (loaded != null) out.loaded = loaded
  const fallback = models.filter(m => m.source === 'fallback').map(m => m.modelId)
  const prompted = models.filter(m => m.source === 'prompt').map(m => m.modelId)
  const announced = models.filter(m => m.announced).map(m => m.modelId)
  if (fallback.length > 0) out.fallback = fallback
  if (prompted.length > 0) out.prompted = prompted
  if (announced.length > 0) out.announced = announced
  if (fetching.length > 0) out.fetching = fetching
  if (givenUp.length > 0) out.givenUp = givenUp
  return out
}

/**
 * A wallet's standing read from the chain, as `PeerStatus.chain` (wei as decimal strings), with why it is paused when
 * the registry paused it and this peer's pause duty left it so (`ownPause`: the duty's last report).
 */
export function accountStatus (a: AccountView, ownPause?: OwnPause): NonNullable<PeerStatus['chain']> {
  const stayed = a.paused && !a.exiting && !a.kickedOut && ownPause?.outcome === 'stayed'
  return {
    address: a.address,
    registered: a.registered,
    balanceWei: a.balanceWei.toString(),
    stakeWei: a.stakeWei.toString(),
    earnedWei: a.earnedWei.toString(),
    score: a.score.toString(),
    ...(a.qos == null ? {} : { qos: a.qos }),
    ...(a.incentive == null ? {} : { incentive: incentiveJson(a.incentive) }),
    paused: a.paused,
    exiting: a.exiting,
    ...(a.withdrawableAt == null ? {} : { withdrawableAt: a.withdrawableAt }),
    kickedOut: a.kickedOut,
    ...(stayed ? { stayedPaused: { cause: ownPause.cause, pausedBlock: ownPause.pausedBlock, inARow: ownPause.inARow } } : {})
  }
}
