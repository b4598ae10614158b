import { logger } from '@libp2p/logger'
import {
  countDrop, createMetrics, DEFAULT_LOCAL_MAX_FAILURES, DEFAULT_MAX_MESSAGE_BYTES, encodeMessage,
  guardCoordTopic, INDEX_JOBS_MAP, jobsTopic, leases as createLeases, macroTopic, messageKind, readCoordMessage,
  recordSigner, recordVerifier, TypedEvents
} from '../coord/index.js'
import { INDEX_DOC } from '../crdt/index.js'
import { announceJob, excludingVerifier } from '../jobs/index.js'
import { countSent, DEFAULT_PRICING } from '../protocol/index.js'
import { DEFAULT_IDLE_MS, DEFAULT_SUMMARY_CHECK_MS } from './constants.js'
import { jobDiscovery } from './job-discovery.js'
import { knownJobSummary } from './job-state.js'
import { followRounds, leaveJob, retireRound } from './job-rounds.js'
import { openJobContext } from './job-context.js'
import { reopenJob } from './job-end.js'
import { followJob } from './job-follow.js'
import { itemFailed } from './poison.js'
import { findRoom, leaveRoom, onMacroMessage, waitFor } from './rooms.js'
import { checkRun, reportWritten, runTurns } from './turns.js'
import { workChoice } from './work-choice.js'
import type { WorkChoice } from './work-choice.js'
import type { JobContext } from './job-context.js'
import type { JobDiscovery } from './job-discovery.js'
import type { KnownJob } from '../jobs/index.js'
import type { JobEndHost } from './job-end.js'
import type { JobRoundsHost } from './job-rounds.js'
import type { PoisonHost } from './poison.js'
import type { RoomsHost } from './rooms.js'
import type { SummaryCheckHost } from './summary-check.js'
import type { TurnHost } from './turns.js'
import { announcementAnswers, ownAnnouncements } from './announcement-answers.js'
import type { AnnouncementAnswers } from './announcement-answers.js'
import type { KnownJobSummary, Processor, RetiredAs, ProcessorComponents, ProcessorEvents, ProcessorInit } from './types.js'
import type {
  CoordMessage, Leases, RecordSigner, RecordVerifier, RoomPubSubMessage
} from '../coord/index.js'
import type { JobSpec, PricingParams } from '../protocol/index.js'
import type * as Y from 'yjs'

export type { KnownJobSummary, MicroJobStartDetail, Processor, ProcessorComponents, RetiredAs, ProcessorEvents, ProcessorInit } from './types.js'

const log = logger('jobmesh:processor')

class JobProcessor extends TypedEvents<ProcessorEvents> implements Processor {
  readonly metrics = createMetrics()
  private readonly components: ProcessorComponents
  private readonly init: ProcessorInit
  private readonly clock: () => number
  private readonly self: string
  private readonly signer: RecordSigner
  private readonly verifier: RecordVerifier
  private readonly leases: Leases
  private readonly jobs = new Map<string, KnownJob>()
  private readonly completed = new Set<string>()
  /** Jobs over on chain or past their deadline (`retire`), and why: never chosen again. */
  private readonly retired = new Map<string, RetiredAs>()
  /** Jobs given up (poison isolation): failed in the CRDT, or too many failures of this peer. */
  private readonly failed = new Set<string>()
  /** Of those, the jobs the other peers completed. */
  private readonly doneElsewhere = new Set<string>()
  /** jobId -> when a MicroJob of it last failed here (such jobs come last in the job choice). */
  private readonly failedAt = new Map<string, number>()
  /** The job choice's state: drained jobs, the warm model, the join (work-choice.ts). */
  private readonly choice: WorkChoice
  /** Spec CIDs whose content this peer holds (`prepareJob` succeeded). */
  private readonly prepared = new Set<string>()
  /** Topic -> removes its gossipsub validator. */
  private readonly unguards = new Map<string, () => void>()
  private readonly contexts = new Map<string, JobContext>()
  private readonly onMessage: (evt: CustomEvent<RoomPubSubMessage>) => void
  private readonly maxBytes: number
  private controller = new AbortController()
  /** Stopped like a crash: results not yet written are dropped, not written. */
  private abrupt = false
  private loop: Promise<void> | undefined
  private indexMap: Y.Map<Uint8Array> | undefined
  private wakeIdle: (() => void) | undefined
  private readonly owners = new Map<string, Set<string>>()
  /** PeerId -> when a signed gossip message from it was last received. */
  private readonly seen = new Map<string, number>()
  /** What the turn loop (turns.ts) uses of this processor. */
  private readonly turnHost: TurnHost
  /** What ending a job here (job-end.ts) uses of this processor. */
  private readonly endHost: JobEndHost
  /** What joining and finding rooms (rooms.ts) uses of this processor. */
  private readonly roomsHost: RoomsHost
  /** What a failed MicroJob (poison.ts) uses of this processor. */
  private readonly poisonHost: PoisonHost
  private readonly roundsHost: JobRoundsHost
  /** What ending a job on its MacroJob summaries, and checking them later (summary-check.ts), uses of this processor. */
  private readonly summaryHost: SummaryCheckHost
  /** Learning jobs from announcements (job-discovery.ts). */
  private readonly discovery: JobDiscovery
  private readonly answers: AnnouncementAnswers

  /** The network's pricing parameters: every job's task value (job choice) comes from them. */
  private readonly pricing: PricingParams

  constructor (components: ProcessorComponents, init: ProcessorInit) {
    super()
    this.components = components
    this.init = init
    this.pricing = init.pricing ?? DEFAULT_PRICING
    this.clock = components.clock ?? Date.now
    this.self = components.peerId.toString()
    this.signer = recordSigner(components.privateKey, this.self, components.counters)
    this.verifier = recordVerifier(components.counters)
    this.leases = createLeases({ signer: this.signer, verifier: this.verifier, clock: this.clock, metrics: this.metrics }, init.leases)
    this.maxBytes = init.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES
    this.onMessage = (evt) => { this.handle(evt.detail) }
    this.endHost = {
      completed: this.completed,
      failed: this.failed,
      doneElsewhere: this.doneElsewhere,
      clock: this.clock,
      onJobComplete: init.onJobComplete,
      dispatch: (type, detail) => { this.safeDispatch(type, detail) }
    }
    this.summaryHost = {
      endHost: this.endHost,
      summaryCheckMs: init.summaryCheckMs ?? DEFAULT_SUMMARY_CHECK_MS,
      settled: init.settled,
      // a context of this processor's (not one a new round retired) whose job was not given up is worked on again
      reopen: (ctx) => { if (this.contexts.get(ctx.job.jobId) === ctx && reopenJob(this.endHost, ctx)) this.wakeIdle?.() },
      signal: () => this.controller.signal
    }
    this.roundsHost = {
      self: this.self,
      jobs: this.jobs,
      contexts: this.contexts,
      completed: this.completed,
      failed: this.failed,
      unguards: this.unguards,
      pubsub: components.pubsub,
      roundOf: init.roundOf
    }
    this.answers = announcementAnswers({
      clock: this.clock,
      publishOwn: () => {
        for (const value of ownAnnouncements(this.indexMap, this.verifier, this.self)) this.publish(jobsTopic(), { announcement: value })
      }
    })
    this.discovery = jobDiscovery({
      self: this.self,
      jobs: this.jobs,
      verifier: this.verifier,
      pricing: this.pricing,
      metrics: this.metrics,
      clock: this.clock,
      roundOf: init.roundOf,
      onLearnt: (job, previous) => {
        if (previous != null) retireRound(this.roundsHost, job.jobId)
        this.wakeIdle?.()
      }
    })
    this.poisonHost = {
      failedAt: this.failedAt,
      localFailures: new Map(),
      decisive: new Set(),
      clock: this.clock,
      localMaxFailures: init.localMaxFailures ?? DEFAULT_LOCAL_MAX_FAILURES,
      endHost: this.endHost,
      checkRun: async (ctx, macroIndex, index) => { await checkRun(this.turnHost, ctx, macroIndex, index, this.controller.signal) }
    }
    this.choice = workChoice({ jobs: this.jobs, completed: this.completed, retired: this.retired, failedAt: this.failedAt,
      self: this.self, clock: this.clock, deadlineClock: init.deadlineClock ?? Date.now }, init)
    const { heartbeatMs, ownerTimeoutMs, maxBatch, discoveryMs, idleMs, mayCoordinate, runLimitMs } = init
    this.roomsHost = {
      pubsub: components.pubsub,
      self: this.self,
      leases: this.leases,
      verifier: this.verifier,
      metrics: this.metrics,
      counters: components.counters,
      heartbeatMs, ownerTimeoutMs, maxBatch, discoveryMs, idleMs, mayCoordinate, runLimitMs,
      maxBytes: this.maxBytes,
      owners: this.owners,
      clock: this.clock,
      lastSeen: (peer) => this.seen.get(peer),
      publish: (topic, msg) => { this.publish(topic, msg) },
      dispatch: (type, detail) => { this.safeDispatch(type, detail) }
    }
    this.turnHost = {
      self: this.self,
      executor: init.executor,
      storeOutput: init.storeOutput,
      want: init.want,
      jobPeers: (ctx) => (this.components.pubsub.getSubscribers?.(macroTopic(ctx.job.key)).length ?? 0) + 1,
      idleMs: init.idleMs,
      renewMs: this.leases.renewMs,
      runLimitMs: init.runLimitMs,
      clock: this.clock,
      deadlineClock: init.deadlineClock ?? Date.now,
      joinJob: this.choice.join == null ? undefined : async (ctx, signal) => { await this.choice.join?.(ctx.job.jobId, ctx.job.round, signal) },
      otherOpenJob: (ctx) => this.choice.otherOpen(ctx.job.jobId),
      findRoom: async (ctx, signal, idleRounds) => findRoom(this.roomsHost, ctx, signal, idleRounds),
      leaveRoom,
      waitFor,
      itemFailed: (ctx, item, err) => { itemFailed(this.poisonHost, ctx, item, err) },
      announceComplete: init.announceComplete === true,
      publish: (topic, msg) => { this.publish(topic, msg) },
      dispatch: (type, detail) => { this.safeDispatch(type, detail) }
    }
  }

  knownJobs (): KnownJobSummary[] {
    const ends = { retired: this.retired, failed: this.failed, doneElsewhere: this.doneElsewhere, completed: this.completed, contexts: this.contexts, settled: this.init.settled }
    return [...this.jobs.values()].map(j => knownJobSummary(j, ends))
  }

  loadedModel (): string | undefined { return this.choice.loadedModel() }

  currentJob (): string | undefined {
    for (const [jobId] of this.contexts) {
      if (!this.completed.has(jobId)) return jobId
    }
    return undefined
  }

  ownersSeen (): Map<string, Set<string>> {
    return this.owners
  }

  async start (): Promise<void> {
    this.controller = new AbortController()
    this.unguards.set(jobsTopic(), guardCoordTopic(this.components.pubsub, jobsTopic(), { maxMessageBytes: this.maxBytes, metrics: this.metrics }))
    this.components.pubsub.subscribe(jobsTopic())
    this.components.pubsub.addEventListener('message', this.onMessage)
    const index = await this.components.docs.open(INDEX_DOC, { signal: this.controller.signal })
    this.indexMap = index.getMap<Uint8Array>(INDEX_JOBS_MAP)
    for (const [key, value] of this.indexMap) this.discovery.learn(value, { key })
    this.indexMap.observe((event) => {
      for (const key of event.keysChanged) {
        const value = this.indexMap?.get(key)
        if (value != null) this.discovery.learn(value, { key })
      }
    })
    this.publish(jobsTopic(), { openJobs: { nonce: BigInt(this.clock()) } })
    this.loop = this.run().catch(err => {
      if (!this.controller.signal.aborted) log.error('processor loop failed: %e', err)
    })
  }

  async stop (options: { abrupt?: boolean } = {}): Promise<void> {
    this.abrupt = options.abrupt === true
    this.controller.abort()
    this.answers.stop()
    this.wakeIdle?.()
    for (const ctx of this.contexts.values()) {
      for (const room of ctx.rooms.values()) room.close(options)
      ctx.progress.stop()
      ctx.failures.stop()
      ctx.wake?.()
    }
    this.components.pubsub.removeEventListener('message', this.onMessage)
    for (const unguard of this.unguards.values()) unguard()
    this.unguards.clear()
    await this.loop
    // finished work is written on a graceful stop; a crash (abrupt) loses it and the leases run out
    for (const ctx of this.contexts.values()) {
      if (this.abrupt) ctx.batch.discard()
      else ctx.batch.flush()
    }
  }

  wake (): void {
    followRounds(this.roundsHost)
    this.wakeIdle?.()
  }

  retire (jobId: string, why: RetiredAs = 'settled'): void {
    const id = jobId.toLowerCase()
    this.retired.set(id, why)
    leaveJob(this.roundsHost, id)
  }

  async announceJob (spec: JobSpec, jobId: string, specCid: string): Promise<void> {
    this.discovery.learn(await announceJob(this.components, spec, jobId, specCid, this.pricing, { signal: this.controller.signal }))
  }

  private handle (msg: RoomPubSubMessage): void {
    // any signed gossip from a peer (rooms, /macro, CRDT updates, /jobs) shows it is alive: rooms ask before a failover
    if (msg.type === 'signed' && msg.from != null) this.seen.set(msg.from.toString(), this.clock())
    const topic = msg.topic
    const isJobs = topic === jobsTopic()
    const ctx = isJobs ? undefined : [...this.contexts.values()].find(c => macroTopic(c.job.key) === topic)
    if (!isJobs && ctx == null) return
    const read = readCoordMessage(msg, { self: this.self, maxBytes: this.maxBytes, counters: this.components.counters })
    if (read.kind === 'drop') countDrop(this.metrics, read.reason)
    if (read.kind !== 'message') return
    const { from, message: decoded } = read
    if (isJobs) {
      if (decoded.announcement != null) this.discovery.learn(decoded.announcement, { from })
      if (decoded.openJobs != null) this.answers.requested()
      return
    }
    if (ctx != null) onMacroMessage(this.roomsHost, ctx, decoded, from)
  }

  private publish (topic: string, msg: Partial<CoordMessage>): void {
    try {
      const bytes = encodeMessage(msg, this.maxBytes)
      countSent(this.components.counters, messageKind(msg), bytes.byteLength)
      this.components.pubsub.publish(topic, bytes).catch((err: Error) => { log('publish on %s: %s', topic, err.message) })
    } catch (err) {
      log.error('cannot encode: %e', err)
    }
  }

  // ---- the loop ----

  private async run (): Promise<void> {
    const signal = this.controller.signal
    while (!signal.aborted) {
      followRounds(this.roundsHost)
      const job = this.choice.next()
      if (job == null) {
        await this.idle(signal)
        continue
      }
      try {
        await this.workOn(job, signal)
      } catch (err) {
        if (!signal.aborted) log.error('job %s: %e', job.jobId, err)
        await this.idle(signal)
      }
    }
  }

  private async idle (signal: AbortSignal, ms = this.init.idleMs ?? DEFAULT_IDLE_MS): Promise<void> {
    if (signal.aborted) return
    await new Promise<void>(resolve => {
      const timer = setTimeout(done, ms)
      function done (): void { clearTimeout(timer); resolve() }
      this.wakeIdle = done
    })
    this.wakeIdle = undefined
  }

  private async context (latest: KnownJob): Promise<JobContext | undefined> {
    const job = this.jobs.get(latest.jobId) ?? latest // the round may have moved on since the job was chosen
    let ctx = this.contexts.get(job.jobId)
    if (ctx != null) return ctx
    // rounds (processor/rounds.ts): the round's doc; results of slashed submitters do not count
    const excluded = job.round > 0 ? await this.init.rounds?.excluded(job.jobId, job.round) : undefined
    if (excluded?.has(this.self) === true) {
      log('%s was slashed for %s: it does not process round %d', this.self, job.jobId, job.round)
      this.completed.add(job.jobId)
      return undefined
    }
    ctx = this.contexts.get(job.jobId)
    if (ctx != null || this.jobs.get(job.jobId) !== job) return ctx
    const verifier = excluded == null ? this.verifier : excludingVerifier(this.verifier, excluded)
    const opening = this.clock()
    ctx = await openJobContext({ docs: this.components.docs, signer: this.signer, verifier, leases: this.leases, metrics: this.metrics }, job, {
      resultFlushMs: this.init.resultFlushMs, signal: this.controller.signal,
      failures: this.init.failures,
      onWritten: (c, written) => { reportWritten(this.turnHost, c, written) }
    })
    log('%s job %s: doc open in %d ms', this.self.slice(-6), job.jobId, this.clock() - opening)
    // over on chain while its doc opened
    if (this.retired.has(job.jobId)) return undefined
    this.contexts.set(job.jobId, ctx)
    this.unguards.set(macroTopic(job.key), guardCoordTopic(this.components.pubsub, macroTopic(job.key), {
      maxMessageBytes: this.maxBytes, metrics: this.metrics, author: this.init.mayCoordinate
    }))
    this.components.pubsub.subscribe(macroTopic(job.key))
    followJob({ endHost: this.endHost, poisonHost: this.poisonHost, summaryHost: this.summaryHost, clock: () => this.clock() }, ctx)
    return ctx
  }

  private async workOn (job: KnownJob, signal: AbortSignal): Promise<void> {
    if (this.init.prepareJob != null && !this.prepared.has(job.specCid)) {
      try {
        await this.init.prepareJob({ jobId: job.jobId, specCid: job.specCid, spec: job.spec }, { signal })
      } catch (err) {
        // inputs larger than the job declares will not shrink: never again here
        if ((err as Error).name === 'ContentTooLargeError') this.retire(job.jobId, 'refused')
        // its inputs are not to be had now: other jobs first (poison isolation's order)
        else this.failedAt.set(job.jobId, this.clock())
        throw err
      }
      this.prepared.add(job.specCid)
    }
    const ctx = await this.context(job)
    this.choice.opened(job)
    if (ctx == null) return
    this.choice.ended(job, await runTurns(this.turnHost, ctx, signal))
  }
}

/**
 * Creates a processor (DESIGN 7 loop): finds open jobs on /jobs and in `jobmesh/index`, picks one with
 * `chooseJob`, joins or creates MacroJob rooms, takes MicroJobs from the queue, runs them through the executor,
 * writes signed results to the job doc and announces completion.
 */
export function createProcessor (components: ProcessorComponents, init: ProcessorInit): Processor {
  return new JobProcessor(components, init)
}
