import { isSettledStatus } from '@jobmesh/contracts'
import { logger } from '@libp2p/logger'
import { TypedEvents } from '../coord/index.js'
import * as Y from 'yjs'
import { closeJobDocs, INDEX_DOC, roundDocName } from '../crdt/index.js'
import { readFinalRecords, readProfiles } from '../jobs/index.js'
import { announcementsMap, decodeAnnouncedJob } from './announced-jobs.js'
import { earningsCursor, readAccount, readVerification, verificationQueueCursor } from './chain-view.js'
import { accountJson, newestFirst } from './network-state.js'
import { mapBounded } from '../settlement/index.js'
import {
  DEFAULT_CHAIN_READ_CONCURRENCY, DEFAULT_CHAIN_REFRESH_MS, DEFAULT_UNFUNDED_RECHECK_MS, UNFUNDED_GIVE_UP_MS, UNFUNDED_RECHECK_MAX_MS
} from './constants.js'
import { rechecks } from './rechecks.js'
import { JobView } from './job-view.js'
import { explainJob } from './story.js'
import { outOfDraw } from './describe.js'
import type { Rechecks } from './rechecks.js'
import type { AccountView, EarningsCursor, VerificationQueueCursor, VerificationView } from './chain-view.js'
import type { JobCard, NetworkState, PeerCard } from './network-state.js'
import type { EventLog } from './event-log.js'
import type { ChainClient, JobStatusName } from '@jobmesh/contracts'
import type { DocStore } from '../crdt/index.js'
import type { JobmeshNode } from '../node/index.js'
import type { Processor } from '../processor/index.js'
import type { PeerProfile } from '../jobs/index.js'
import type { HeldModel } from '../models/index.js'
import type { OutOfDraw } from './story.js'

const log = logger('jobmesh:observe')

export interface NetworkObserverComponents {
  node: Pick<JobmeshNode, 'libp2p' | 'peerId' | 'privateKey'>
  docs: Pick<DocStore, 'open' | 'get' | 'storedState' | 'names' | 'close'>
  events: EventLog
  processor?: Pick<Processor, 'addEventListener' | 'removeEventListener' | 'knownJobs'>
  chain?: ChainClient
  /** This peer's wallet. */
  address?: string
  /** The models this peer holds (how each came, whether the chain knows). */
  models?: () => HeldModel[]
}

export interface NetworkObserverInit {
  /** Default {@link DEFAULT_CHAIN_REFRESH_MS}. */
  chainRefreshMs?: number
  /**
   * A job the escrow does not hold gets no card and is looked at again after this long (ms), then twice as long each
   * time. Default {@link DEFAULT_UNFUNDED_RECHECK_MS}.
   */
  unfundedRecheckMs?: number
  /** This peer's hardware, for the "this peer" card. */
  gpuModel?: string
  vramGb?: number
}

export interface NetworkObserverEvents {
  /** The state changed (progress, owners, peers, chain values, events). */
  change: { at: number }
}

/**
 * Follows what a peer sees of the network for the dashboard: announced jobs (live progress and queue owners from
 * their CRDT docs), known and connected peers, and from the chain its wallet, the peers' stake and QoS score, and
 * each job's verification phase (refreshed in the background, at most every `chainRefreshMs`).
 */
export class NetworkObserver extends TypedEvents<NetworkObserverEvents> {
  private readonly components: NetworkObserverComponents
  private readonly init: NetworkObserverInit
  private readonly views = new Map<string, JobView>()
  /** jobId -> when this peer learnt it (kept across its rounds' views). */
  private readonly learntAt = new Map<string, number>()
  private readonly verification = new Map<string, VerificationView>()
  /** The finalizer (the signer of the round's final record) of each `<jobId>@<round>`, once one was read. */
  private readonly finalizers = new Map<string, string>()
  private readonly registry = new Map<string, { stake: bigint, score: bigint, eligible: boolean, paused: boolean, out?: OutOfDraw }>()
  private profiles = new Map<string, PeerProfile>()
  private account: AccountView | undefined
  private earnings: EarningsCursor | undefined
  /** One incremental reader of the verification queue for every job card (queue positions). */
  private queue: VerificationQueueCursor | undefined
  private headBlock: number | undefined
  private chainError: string | undefined
  private refreshing: Promise<void> | undefined
  private lastRefresh = 0
  private readonly controller = new AbortController()
  private readonly detach: Array<() => void> = []
  /** Announced jobs the escrow did not hold when read: looked at again later, for a while. */
  private readonly unfunded: Rechecks

  constructor (components: NetworkObserverComponents, init: NetworkObserverInit = {}) {
    super()
    this.components = components
    this.init = init
    if (components.chain != null && components.address != null) this.earnings = earningsCursor(components.chain, components.address)
    if (components.chain != null) this.queue = verificationQueueCursor(components.chain)
    this.unfunded = rechecks({ firstMs: init.unfundedRecheckMs ?? DEFAULT_UNFUNDED_RECHECK_MS, maxMs: UNFUNDED_RECHECK_MAX_MS, giveUpMs: UNFUNDED_GIVE_UP_MS })
  }

  async start (): Promise<void> {
    const { components } = this
    const changed = (): void => { this.safeDispatch('change', { at: Date.now() }) }
    const index = await components.docs.open(INDEX_DOC, { signal: this.controller.signal })
    const jobs = announcementsMap(index)
    const learn = (record: Uint8Array | undefined, at = Date.now()): JobView | undefined => {
      if (record == null) return
      const job = decodeAnnouncedJob(record)
      if (job == null) return
      const known = this.views.get(job.jobId)
      if (known != null && known.job.round >= job.round) return
      known?.stop()
      if (!this.learntAt.has(job.jobId)) this.learntAt.set(job.jobId, at)
      const view = new JobView(job)
      this.views.set(job.jobId, view)
      view.addEventListener('change', changed)
      return view
    }
    // the job of the index's `key`: its card shown, or (the escrow does not hold it) hidden and looked at again later
    const display = async ({ key, view }: { key: string, view: JobView }): Promise<void> => {
      await this.show(view).then(shown => {
        if (shown === 'unfunded') this.hide(view, () => { look(key) })
        else this.unfunded.forget(view.job.jobId)
        changed()
      }, (err: Error) => { if (!this.controller.signal.aborted) log('cannot follow job %s: %e', view.job.jobId, err) })
    }
    const look = (key: string): void => {
      const view = learn(jobs.get(key))
      if (view != null) void display({ key, view })
    }
    // the index's jobs so far (after a restart, every job it ever announced): each is read on chain first, a few at once
    const startedAt = Date.now()
    const known = [...jobs.keys()].map(key => ({ key, view: learn(jobs.get(key), startedAt) })).filter((k): k is { key: string, view: JobView } => k.view != null)
    void mapBounded(known, DEFAULT_CHAIN_READ_CONCURRENCY, display, this.controller.signal).catch(() => {})
    const onJobs = (event: { keysChanged: Set<string> }): void => {
      for (const key of event.keysChanged) look(key)
      changed()
    }
    jobs.observe(onJobs)
    this.detach.push(() => { jobs.unobserve(onJobs) })
    const onProfiles = (): void => {
      readProfiles({ docs: components.docs }).then(p => { this.profiles = p; changed() }, () => {})
    }
    onProfiles()
    index.on('update', onProfiles)
    this.detach.push(() => { index.off('update', onProfiles) })
    if (components.processor != null) {
      const processor = components.processor
      const onOwner = (evt: CustomEvent<{ jobId: string, macroIndex: number, owner: string }>): void => {
        this.views.get(evt.detail.jobId)?.ownerSeen(evt.detail.macroIndex, evt.detail.owner)
      }
      processor.addEventListener('room:owner', onOwner)
      this.detach.push(() => { processor.removeEventListener('room:owner', onOwner) })
    }
    const libp2p = components.node.libp2p
    libp2p.addEventListener('peer:connect', changed)
    libp2p.addEventListener('peer:disconnect', changed)
    this.detach.push(() => {
      libp2p.removeEventListener('peer:connect', changed)
      libp2p.removeEventListener('peer:disconnect', changed)
    })
    const onEvent = (): void => { changed() }
    components.events.addEventListener('event', onEvent)
    this.detach.push(() => { components.events.removeEventListener('event', onEvent) })
  }

  /**
   * Opens a job's card: a live job's round doc is followed; one over on chain (released or refunded) is read from
   * what this peer stored of it, and neither opened nor followed, so that a peer that restarts after many jobs does
   * not follow every job the index ever announced (the peers that worked on it retired it: docs/settlement.md).
   */
  private async show (view: JobView): Promise<'live' | 'over' | 'unfunded'> {
    const { components } = this
    const signal = this.controller.signal
    const self = { privateKey: components.node.privateKey, peerId: components.node.peerId.toString() }
    const status = await this.chainStatus(view.job.jobId)
    // an announcement is a signed record anybody registered may write: no card, doc or metrics for a job nobody funded
    if (status === 'None') return 'unfunded'
    if (status == null || !isSettledStatus(status)) {
      await view.open({ docs: components.docs, ...self }, { signal })
      return 'live'
    }
    const doc = new Y.Doc()
    const stored = await components.docs.storedState(roundDocName(view.job.jobId, view.job.round))
    if (stored != null) Y.applyUpdate(doc, stored)
    await view.open({ docs: { open: async () => doc }, ...self }, { signal })
    if (status === 'Released') view.markReleased()
    return 'over'
  }

  /** The job's status in the escrow; undefined without a chain, or when it cannot be read (then shown live). */
  private async chainStatus (jobId: string): Promise<JobStatusName | undefined> {
    const chain = this.components.chain
    if (chain == null) return undefined
    try {
      return (await chain.job(jobId, { signal: this.controller.signal })).status
    } catch (err) {
      log('cannot read job %s on chain: %e', jobId, err)
      return undefined
    }
  }

  /** Takes a job the escrow does not hold off the dashboard; `lookAgain` later, until {@link UNFUNDED_GIVE_UP_MS}. */
  private hide (view: JobView, lookAgain: () => void): void {
    const jobId = view.job.jobId
    if (this.views.get(jobId) === view) this.views.delete(jobId)
    this.finalizers.delete(`${jobId}@${view.job.round}`)
    view.stop()
    if (this.unfunded.later(jobId, lookAgain)) log('job %s is not in the escrow (yet): no card; looked at again later', jobId)
    else log('job %s announced but not in the escrow for %d ms: forgotten until its announcement changes', jobId, UNFUNDED_GIVE_UP_MS)
  }

  /**
   * A job over on chain that this peer's processor never worked on: its docs, opened for its card, are closed (the
   * card keeps what it showed). A job worked on here is closed by its retirement once the settlement is done with it.
   */
  private async closeUnused (jobId: string): Promise<void> {
    const state = this.components.processor?.knownJobs().find(j => j.jobId.toLowerCase() === jobId.toLowerCase())?.state
    if (state === 'working' || state === 'complete' || state === 'failed') return
    const names = await closeJobDocs(this.components.docs, jobId)
    if (names.length > 0) log('job %s is over on chain: %d docs of its card closed', jobId, names.length)
  }

  stop (): void {
    this.controller.abort()
    this.unfunded.stop()
    for (const d of this.detach) d()
    for (const v of this.views.values()) v.stop()
  }

  /**
   * MicroJobs done / total per job not settled on chain (for the metrics): a released or refunded job leaves them, or
   * every job the peer ever saw would be two series for the life of the process.
   */
  jobCounts (): Array<{ jobId: string, done: number, total: number }> {
    return [...this.views.values()]
      .filter(v => { const status = this.verification.get(v.job.jobId)?.status; return status == null || !isSettledStatus(status) })
      .map(v => ({ jobId: v.job.jobId, done: v.done, total: v.job.total }))
  }

  /** Starts a background chain refresh unless one ran within `chainRefreshMs`; resolves when it is done. */
  async refreshChain (): Promise<void> {
    const chain = this.components.chain
    if (chain == null) return
    if (this.refreshing != null) return await this.refreshing
    if (Date.now() - this.lastRefresh < (this.init.chainRefreshMs ?? DEFAULT_CHAIN_REFRESH_MS)) return
    this.refreshing = this.readChain(chain).finally(() => {
      this.lastRefresh = Date.now()
      this.refreshing = undefined
      this.safeDispatch('change', { at: Date.now() })
    })
    return await this.refreshing
  }

  private async readChain (chain: ChainClient): Promise<void> {
    const signal = this.controller.signal
    try {
      this.headBlock = await chain.blockNumber({ signal })
      if (this.components.address != null) {
        this.account = await readAccount(chain, this.components.address, { signal, earnings: this.earnings })
      }
      await mapBounded([...this.profiles], DEFAULT_CHAIN_READ_CONCURRENCY, async ([peerId, p]) => {
        const info = await chain.nodeInfo(p.address, { signal })
        this.registry.set(peerId, { stake: info.stake, score: info.score, eligible: info.eligible, paused: info.paused, out: outOfDraw(info) })
      }, signal)
      await mapBounded([...this.views.keys()], DEFAULT_CHAIN_READ_CONCURRENCY, async jobId => {
        const known = this.verification.get(jobId)
        if (known != null && isSettledStatus(known.status)) return
        const verification = await readVerification(chain, jobId, { signal, queue: this.queue })
        this.verification.set(jobId, verification)
        // submitted (or settled: read before its docs close below), the job has a finalizer the story names
        if (verification.status !== 'Open') await this.readFinalizer(jobId, signal)
        if (verification.status === 'Released') this.views.get(jobId)?.markReleased()
        if (isSettledStatus(verification.status)) await this.closeUnused(jobId)
      }, signal)
      this.chainError = undefined
    } catch (err) {
      if (signal.aborted) return
      this.chainError = `${(err as Error).name}: ${(err as Error).message}`
      log('chain refresh failed: %e', err)
    }
  }

  private async readFinalizer (jobId: string, signal: AbortSignal): Promise<void> {
    const view = this.views.get(jobId)
    if (view == null) return
    const key = `${jobId}@${view.job.round}`
    // only from a doc open here: a job over on chain shown from what the peer stored is not opened again for it
    if (this.finalizers.has(key) || this.components.docs.get(roundDocName(jobId, view.job.round)) == null) return
    const finals = await readFinalRecords({ docs: this.components.docs }, jobId, { signal, round: view.job.round }).catch(() => [])
    if (finals[0] != null) this.finalizers.set(key, finals[0].signer)
  }

  /** The current state (cheap; chain values are the last refreshed ones). */
  state (): NetworkState {
    const { node } = this.components
    const self = node.peerId.toString()
    const connected = new Map<string, string>()
    for (const c of node.libp2p.getConnections()) {
      const id = c.remotePeer.toString()
      if (!connected.has(id)) connected.set(id, c.remoteAddr.toString())
    }
    const ids = new Set([...this.profiles.keys(), ...connected.keys()])
    ids.delete(self)
    const peers: PeerCard[] = [...ids].sort().map(peerId => {
      const reg = this.registry.get(peerId)
      return {
        peerId,
        connected: connected.has(peerId),
        remoteAddr: connected.get(peerId),
        profile: this.profiles.get(peerId),
        stakeWei: reg?.stake.toString(),
        score: reg?.score.toString(),
        eligible: reg?.eligible,
        paused: reg?.paused
      }
    })
    const peerFacts = [...this.profiles].map(([peerId, p]) => {
      const reg = this.registry.get(peerId)
      // as describe counts them: an exiting or kicked-out node matches no job
      return { peerId, gpuModel: p.gpuModel, vramGb: p.vramGb, address: p.address, out: reg?.out }
    })
    const jobs: JobCard[] = newestFirst([...this.views.values()], this.learntAt).map(v => {
      const progress = v.view()
      const verification = this.verification.get(v.job.jobId)
      // a node with a chain that has not read this job there yet (the chain unreachable, or not refreshed yet) does not
      // guess its phase: without it a released job read "processed, waiting for the finalizer to submit"
      const chainUnread = this.components.chain != null && verification == null
      const story = explainJob({
        jobId: v.job.jobId,
        announced: { round: v.job.round, requirements: v.job.requirements, macroJobs: v.job.macroJobs, microJobsPerMacro: v.job.microJobsPerMacro, announcer: v.job.announcer },
        progress,
        peers: peerFacts,
        chain: verification,
        finalizer: this.finalizers.get(`${v.job.jobId}@${v.job.round}`),
        ...(chainUnread ? unreadChain(this.chainError) : {})
      })
      return {
        jobId: v.job.jobId,
        learntAt: this.learntAt.get(v.job.jobId) ?? 0,
        round: v.job.round,
        requirements: v.job.requirements,
        progress,
        verification: verification == null ? undefined : { ...verification, feeWei: verification.feeWei.toString() },
        story: { phase: story.phase, waitingFor: story.waitingFor, lines: story.lines, matching: story.matching.summary, ...(chainUnread ? { chainUnread: true } : {}) }
      }
    })
    const a = this.account
    return {
      at: Date.now(),
      self: {
        peerId: self,
        addresses: node.libp2p.getMultiaddrs().map(String),
        gpuModel: this.init.gpuModel,
        vramGb: this.init.vramGb ?? 0,
        account: a == null ? undefined : accountJson(a),
        models: this.components.models?.()
      },
      peers,
      jobs,
      events: this.components.events.recent().slice(-60),
      headBlock: this.headBlock,
      chainError: this.chainError,
      chainConfigured: this.components.chain != null
    }
  }
}

/** A job's facts while the chain has not read it: not read yet (pending), or the last read's error. */
function unreadChain (chainError: string | undefined): { chainUnread: true, chainPending?: true, notes: string[] } {
  return chainError == null
    ? { chainUnread: true, chainPending: true, notes: ['the chain has not been read yet'] }
    : { chainUnread: true, notes: [`the chain could not be read (${chainError})`] }
}
