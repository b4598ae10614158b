import { anySignal } from '@jobmesh/contracts'
import { readFinalRecords, readProfiles } from '../jobs/index.js'
import { bondableNodes } from '../settlement/index.js'
import { readAnnouncedJobs } from './announced-jobs.js'
import { readVerification } from './chain-view.js'
import { DEFAULT_DESCRIBE_TIMEOUT_MS } from './constants.js'
import { JobView } from './job-view.js'
import { explainJob } from './story.js'
import type { JobViewComponents } from './job-view.js'
import type { JobFacts, JobStory, OutOfDraw, PeerFacts } from './story.js'
import type { ChainClient, NodeInfo } from '@jobmesh/contracts'
import type { DocStore } from '../crdt/index.js'
import type { Libp2p } from '@libp2p/interface'

export interface DescribeComponents extends JobViewComponents {
  docs: Pick<DocStore, 'open'>
  /** Without a chain, the story has no escrow status, verifiers or registry state. */
  chain?: ChainClient
  /**
   * This node's connections: connected to no peer, it cannot tell what the peers know of a job (its announcement,
   * progress, the peers' profiles), and the story says so instead of guessing. Without it that is not told.
   */
  libp2p?: Pick<Libp2p, 'getPeers'>
}

export interface DescribeOptions {
  signal?: AbortSignal
  /** Per read (doc open, chain call), in ms. Default {@link DEFAULT_DESCRIBE_TIMEOUT_MS}. */
  timeoutMs?: number
  /**
   * The MacroJob docs whose results the progress counts (`JobView.open`): `'held'` (default), those this node holds,
   * and the summaries, so that describing a job from a peer does not make it a member of every room's doc; `'all'`
   * opens every one (a DApp's client).
   */
  macroDocs?: 'all' | 'held'
}

/**
 * Why the registry keeps a node out of every draw and of new work (kicked out, exiting or paused), or out of the draws
 * (at QoS score 0: weight 0 until a probe scores it), or undefined.
 */
export function outOfDraw (info: Pick<NodeInfo, 'registered' | 'paused' | 'exiting' | 'kickedOut' | 'score'>): OutOfDraw | undefined {
  if (info.kickedOut) return 'kicked-out'
  if (info.exiting) return 'exiting'
  if (info.paused) return 'paused'
  // a withdrawn node keeps its scores: it is not registered, which says enough
  return info.registered && info.score === 0n ? 'unscored' : undefined
}

/** The peers this node knows (their signed profiles), each with its registry state when a chain is known. */
export async function gatherPeerFacts (components: Pick<DescribeComponents, 'docs' | 'chain'>, options: DescribeOptions = {}): Promise<PeerFacts[]> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_DESCRIBE_TIMEOUT_MS
  const signal = (): AbortSignal => anySignal([options.signal], timeoutMs)
  const { chain } = components
  const profiles = await readProfiles(components, { signal: signal() })
  return await Promise.all([...profiles].map(async ([peerId, p]) => {
    const facts: PeerFacts = { peerId, gpuModel: p.gpuModel, vramGb: p.vramGb, address: p.address }
    if (chain == null) return facts
    try {
      const info = await chain.nodeInfo(p.address, { signal: signal() })
      return { ...facts, registered: info.registered, out: outOfDraw(info), eligible: info.eligible }
    } catch {
      return facts
    }
  }))
}

/** Everything a node can find out about a job, gathered from the CRDT (announcement, profiles, progress) and the chain. */
export async function gatherJobFacts (components: DescribeComponents, jobId: string, options: DescribeOptions = {}): Promise<JobFacts> {
  const id = jobId.toLowerCase()
  const timeoutMs = options.timeoutMs ?? DEFAULT_DESCRIBE_TIMEOUT_MS
  const signal = (): AbortSignal => anySignal([options.signal], timeoutMs)
  const notes: string[] = []
  const { chain } = components
  const [announced, peers, verification] = await Promise.all([
    readAnnouncedJobs(components.docs, { signal: signal() }).then(m => m.get(id)),
    gatherPeerFacts(components, options),
    chain == null
      ? undefined
      : readVerification(chain, id, { signal: signal() }).catch((err: Error) => {
        notes.push(`the chain could not be read (${err.name}: ${err.message})`)
        return null
      })
  ])
  const facts: JobFacts = { jobId: id, peers, chain: verification ?? undefined, notes, ...(verification === null ? { chainUnread: true } : {}) }
  if (components.libp2p?.getPeers().length === 0) {
    facts.unconnected = true
    notes.push('this node is connected to no peer: what the peers know of the job (its announcement, its progress, their profiles) ' +
      'is known here only as far as this node kept it from earlier connections')
  }
  if (announced != null) {
    facts.announced = {
      round: announced.round,
      requirements: announced.requirements,
      macroJobs: announced.macroJobs,
      microJobsPerMacro: announced.microJobsPerMacro,
      announcer: announced.announcer
    }
    const view = new JobView(announced)
    try {
      await view.open(components, { signal: signal(), macroDocs: options.macroDocs })
      const v = view.view()
      facts.progress = { done: v.done, total: v.total, macros: v.macros, failures: v.failures }
      const finals = await readFinalRecords(components, id, { signal: signal(), round: announced.round })
      facts.finalizer = finals[0]?.signer
    } catch (err) {
      notes.push(`the job's doc could not be read (${(err as Error).message})`)
    } finally {
      view.stop()
    }
  }
  // the peers take only jobs whose bond their free stake covers: an open job none can bond is left alone
  if (chain != null && verification?.status === 'Open' && (facts.progress?.done ?? 0) === 0) {
    facts.bondable = await bondableNodes({ docs: components.docs, chain }, verification.feeWei, { signal: signal() }).catch((err: Error) => {
      notes.push(`the nodes' free stakes could not be read (${err.name}: ${err.message})`)
      return undefined
    })
  }
  return facts
}

/**
 * Tells a job's story (`jobmesh-dapp describe`, the SDK's `describe`, the dashboard): created, announced, how many
 * peers match its requirements and why the others do not, progress, finalizer, verifiers and their phase, and what it
 * is waiting for now.
 */
export async function describeJob (components: DescribeComponents, jobId: string, options: DescribeOptions = {}): Promise<JobStory> {
  return explainJob(await gatherJobFacts(components, jobId, options))
}
