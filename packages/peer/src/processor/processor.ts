import { createHash } from 'node:crypto'
import { logger } from '@libp2p/logger'
import { CID } from 'multiformats/cid'
import * as Digest from 'multiformats/hashes/digest'
import { decodeMessage, encodeMessage, messageKind } from '../coord/codec.js'
import {
  DEFAULT_LOCAL_MAX_FAILURES, DEFAULT_MAX_MESSAGE_BYTES, FAILURES_MAP, INDEX_DOC, INDEX_JOBS_MAP, MACRO_MAP, MICRO_MAP,
  RESULTS_MAP
} from '../coord/constants.js'
import { JobFailures } from '../coord/failures.js'
import { TypedEvents } from '../coord/events.js'
import { macroKey, macroScope, microKey, microScope } from '../coord/keys.js'
import { leases as createLeases } from '../coord/leases.js'
import { createMetrics } from '../coord/metrics.js'
import { JobAnnouncement } from '../coord/pb/coord.js'
import { JobProgress } from '../coord/progress.js'
import { countStates } from '../coord/queue.js'
import { resultTable } from '../coord/results.js'
import { MacroRoom } from '../coord/room.js'
import { recordSigner, recordVerifier } from '../coord/signing.js'
import { guardCoordTopic } from '../coord/topic-guard.js'
import { jobsTopic, macroTopic } from '../coord/topics.js'
import { chooseJob, countReceived, countSent, decodeJobSpec, encodeJobSpec, estimatedSeconds, sliceJob, taskValue } from '../protocol/index.js'
import {
  ANNOUNCEMENT_DOMAIN, DEFAULT_ANNOUNCEMENT_TTL_MS, DEFAULT_COMPLETION_WINDOW_MS, DEFAULT_DISCOVERY_MS,
  DEFAULT_IDLE_MS, DEFAULT_RESULT_FLUSH_MS, DEFAULT_WANT
} from './constants.js'
import { InvalidAnnouncementError } from './errors.js'
import { healthyFirst, runTimeoutMs } from './poison.js'
import { ResultBatch } from './result-batch.js'
import { chooseRoom, macroRank } from './room-choice.js'
import { announcedRound, excludingVerifier, roundKey } from './rounds.js'
import { roundDocName } from '../crdt/names.js'
import type { MicroJobExecutor, MicroJobTask } from './executor.js'
import type { FinishedMicroJob } from './result-batch.js'
import type { RoundOracle } from './rounds.js'
import type { CoordMessage } from '../coord/codec.js'
import type { LeaseTable, Leases, LeasesInit } from '../coord/leases.js'
import type { JobFailuresInit } from '../coord/failures.js'
import type { CoordMetrics } from '../coord/metrics.js'
import type { LockedItem, RoomPubSub, RoomPubSubMessage } from '../coord/room.js'
import type { RecordSigner, RecordVerifier } from '../coord/signing.js'
import type { JobSpec, PeerState, Slicing, TrafficCounters } from '../protocol/index.js'
import type { AbortOptions, PeerId, PrivateKey } from '@libp2p/interface'
import type * as Y from 'yjs'

const log = logger('jobmesh:processor')

export interface ProcessorComponents {
  peerId: PeerId
  privateKey: PrivateKey
  pubsub: RoomPubSub
  /**
   * The CRDT doc store (`createDocStore`). With `confirm`, a MacroJob lease claim exchanges state with every
   * connected peer before it re-reads (concurrent claims cannot both win); without it only the settle window does.
   */
  docs: { open(name: string): Promise<Y.Doc>, confirm?(name: string, options?: AbortOptions): Promise<unknown> }
  clock?: () => number
  /** Counts messages, record signatures and verifications (benches, profiles); pass the same one to the doc store. */
  counters?: TrafficCounters
}

export interface ProcessorInit {
  executor: MicroJobExecutor
  /** Where output bytes go; returns a CID string. Default: nowhere (only the hash is recorded). */
  storeOutput?(bytes: Uint8Array): Promise<string | undefined>
  /**
   * Called before this peer first works on a job (each round): the peer fetches and pins the job's spec, code and
   * data here (`pinJobContent`), so the job survives its DApp going offline. A failure skips the job for now.
   */
  prepareJob?(job: { jobId: string, specCid: string, spec: JobSpec }, options: AbortOptions): Promise<void>
  /** Called once on the peer whose result completed the job (finalization is idempotent). */
  onJobComplete?(jobId: string): void | Promise<void>
  /** This peer's hardware for job choice. Default: `{ gpuModel: 'Any', vramGb: 0 }` (runs only "Any" jobs with no VRAM need). */
  hardware?: PeerState
  leases?: LeasesInit
  heartbeatMs?: number
  ownerTimeoutMs?: number
  maxBatch?: number
  /** MicroJobs asked for per queue turn. Default {@link DEFAULT_WANT}. */
  want?: number
  discoveryMs?: number
  idleMs?: number
  maxMessageBytes?: number
  /** Publish "MicroJobs complete" on the job's topic, one notice per queue turn listing its MicroJobs. Default true. */
  announceComplete?: boolean
  /** Longest time a finished MicroJob's result waits to be written with the rest of its turn (ms). Default {@link DEFAULT_RESULT_FLUSH_MS}. */
  resultFlushMs?: number
  /** Rounds after a rejection: whose results do not count (slashed submitters). Default: nobody is excluded. */
  rounds?: RoundOracle
  /** Poison isolation: failed attempts after which a job is given up (coord/failures.ts). */
  failures?: JobFailuresInit
  /** This peer gives a job up after this many of its own failed attempts. Default {@link DEFAULT_LOCAL_MAX_FAILURES}. */
  localMaxFailures?: number
}

export interface MicroJobStartDetail {
  jobId: string
  macroIndex: number
  index: number
  leaseTerm: number
  /** ms from this peer being ready for work (previous MicroJob done, or queue request) to this start. */
  waitMs: number
  /** ms from the lock (lease written) to this start. */
  claimToStartMs: number
}

export interface ProcessorEvents {
  'microjob:start': MicroJobStartDetail
  'microjob:done': { jobId: string, macroIndex: number, index: number, leaseTerm: number, outputHash: Uint8Array }
  'microjob:error': { jobId: string, macroIndex: number, index: number, error: Error }
  /** This peer became owner of a MacroJob queue. */
  ownership: { jobId: string, macroIndex: number, epoch: number, term: number }
  /** The queue owner of a MacroJob room this peer is in, from every accepted snapshot and own ownership (observability). */
  'room:owner': { jobId: string, macroIndex: number, owner: string, epoch: number, term: number }
  'job:complete': { jobId: string, finalizer: boolean }
  /** The job reached the failure bound (its MicroJobs fail everywhere): this peer gave it up. */
  'job:failed': { jobId: string, attempts: number, peers: number, reasons: string[] }
}

export interface Processor extends TypedEvents<ProcessorEvents> {
  readonly metrics: CoordMetrics
  /** Starts the loop. */
  start(): Promise<void>
  /** Stops the loop and leaves every room (`abrupt`: no handoff, like a crash). */
  stop(options?: { abrupt?: boolean }): Promise<void>
  /** Writes a signed JobAnnouncement to `jobmesh/index` and publishes it on /jobs. */
  announceJob(spec: JobSpec, jobId: string, specCid: string): Promise<void>
  /** Every owner seen per `jobId/macroIndex` (observability, tests). */
  ownersSeen(): Map<string, Set<string>>
  /** The jobs this peer knows of (from announcements), for status displays. */
  knownJobs(): KnownJobSummary[]
  /** The job this peer is working on now, if any. */
  currentJob(): string | undefined
}

/** A job as `jobmesh status` lists it. */
export interface KnownJobSummary {
  jobId: string
  microJobs: number
  /** Task value (wei per estimated second). */
  value: number
  state: 'open' | 'working' | 'complete' | 'failed'
}

/** A MicroJob this peer finished in the current queue turn (listed in the turn's complete notice). */
interface Finished { index: number, term: number, outputHash: Uint8Array<ArrayBuffer> }

interface KnownJob {
  jobId: string
  specCid: string
  spec: JobSpec
  value: bigint
  minVramGb: number
  gpuModel?: string
  modelId?: string
  signer: string
  /** Processing round (rejections on chain) and its key for topics and signing domains (processor/rounds.ts). */
  round: number
  key: string
}

interface JobContext {
  job: KnownJob
  doc: Y.Doc
  slicing: Slicing
  macroLeases: LeaseTable
  microLeases: LeaseTable
  results: ReturnType<typeof resultTable>
  progress: JobProgress
  failures: JobFailures
  rooms: Map<number, MacroRoom>
  /** macroIndex -> { open, at } from RoomAnnouncements. */
  announced: Map<number, { open: number, at: number, owner: string }>
  lastLocalResult: number
  /** This peer's finished MicroJobs not yet written (result-batch.ts). */
  batch: ResultBatch
  finalized: boolean
  wake?(): void
}

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
  /** Jobs given up (poison isolation): failed in the CRDT, or too many failures of this peer. */
  private readonly failed = new Set<string>()
  /** jobId -> when a MicroJob of it last failed here (such jobs come last in the job choice). */
  private readonly failedAt = new Map<string, number>()
  /** jobId -> failed attempts of this peer. */
  private readonly localFailures = new Map<string, number>()
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

  constructor (components: ProcessorComponents, init: ProcessorInit) {
    super()
    this.components = components
    this.init = init
    this.clock = components.clock ?? Date.now
    this.self = components.peerId.toString()
    this.signer = recordSigner(components.privateKey, this.self, components.counters)
    this.verifier = recordVerifier(components.counters)
    this.leases = createLeases({ signer: this.signer, verifier: this.verifier, clock: this.clock, metrics: this.metrics }, init.leases)
    this.maxBytes = init.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES
    this.onMessage = (evt) => { this.handle(evt.detail) }
  }

  knownJobs (): KnownJobSummary[] {
    return [...this.jobs.values()].map(j => ({
      jobId: j.jobId,
      microJobs: j.spec.slicing.macroJobs * j.spec.slicing.microJobsPerMacro,
      value: Number(j.value),
      state: this.failed.has(j.jobId) ? 'failed' : this.completed.has(j.jobId) ? 'complete' : this.contexts.has(j.jobId) ? 'working' : 'open'
    }))
  }

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
    const index = await this.components.docs.open(INDEX_DOC)
    this.indexMap = index.getMap<Uint8Array>(INDEX_JOBS_MAP)
    for (const [, value] of this.indexMap) this.learn(value)
    this.indexMap.observe((event) => {
      for (const key of event.keysChanged) {
        const value = this.indexMap?.get(key)
        if (value != null) this.learn(value)
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

  async announceJob (spec: JobSpec, jobId: string, specCid: string): Promise<void> {
    let payload: Uint8Array
    try {
      payload = JobAnnouncement.encode({
        jobId: hexToBytes(jobId),
        specCid,
        minVramGb: spec.requirements.minVramGb,
        gpuModel: spec.requirements.gpuModel,
        modelId: spec.requirements.modelId,
        value: Number(specValue(spec)),
        status: 0,
        microJobs: spec.slicing.macroJobs * spec.slicing.microJobsPerMacro,
        spec: encodeJobSpec(spec) as Uint8Array<ArrayBuffer>
      })
    } catch (err) {
      throw new InvalidAnnouncementError(`cannot announce ${jobId}: ${(err as Error).message}`)
    }
    const record = this.signer.sign(ANNOUNCEMENT_DOMAIN, payload)
    if (this.indexMap == null) {
      const index = await this.components.docs.open(INDEX_DOC)
      this.indexMap = index.getMap<Uint8Array>(INDEX_JOBS_MAP)
    }
    this.indexMap.set(jobId.toLowerCase(), record)
    this.learn(record)
    this.publish(jobsTopic(), { announcement: record as Uint8Array<ArrayBuffer> })
  }

  // ---- job discovery ----

  private learn (record: Uint8Array): KnownJob | undefined {
    const verified = this.verifier.verify(record, ANNOUNCEMENT_DOMAIN)
    if (verified == null) {
      this.metrics.droppedForged++
      return undefined
    }
    try {
      const a = JobAnnouncement.decode(verified.payload)
      const jobId = bytesToHex(a.jobId)
      const known = this.jobs.get(jobId)
      const round = announcedRound(a)
      if (known != null && round <= known.round) return known
      if (a.spec == null && known == null) return undefined
      const spec = a.spec != null ? decodeJobSpec(a.spec) : (known as KnownJob).spec
      const job: KnownJob = {
        jobId, specCid: a.specCid, spec, value: specValue(spec), minVramGb: a.minVramGb, gpuModel: a.gpuModel,
        modelId: a.modelId, signer: verified.signer, round, key: roundKey(jobId, round)
      }
      this.jobs.set(jobId, job)
      if (known != null) this.retireRound(jobId)
      this.wakeIdle?.()
      return job
    } catch (err) {
      log('bad announcement: %e', err)
      this.metrics.droppedMalformed++
      return undefined
    }
  }

  private handle (msg: RoomPubSubMessage): void {
    // any signed gossip from a peer (rooms, /macro, CRDT updates, /jobs) shows it is alive: rooms ask before a failover
    if (msg.type === 'signed' && msg.from != null) this.seen.set(msg.from.toString(), this.clock())
    const topic = msg.topic
    const isJobs = topic === jobsTopic()
    const ctx = isJobs ? undefined : [...this.contexts.values()].find(c => macroTopic(c.job.key) === topic)
    if (!isJobs && ctx == null) return
    if (msg.type !== 'signed' || msg.from == null) {
      this.metrics.droppedForged++
      return
    }
    const from = msg.from.toString()
    if (from === this.self) return
    let decoded: CoordMessage
    try {
      decoded = decodeMessage(msg.data, this.maxBytes)
    } catch (err) {
      countReceived(this.components.counters, 'malformed', msg.data.byteLength, true)
      if ((err as Error).name === 'MessageTooLargeError') this.metrics.droppedOversized++
      else this.metrics.droppedMalformed++
      return
    }
    countReceived(this.components.counters, messageKind(decoded), msg.data.byteLength, true)
    if (isJobs) {
      if (decoded.announcement != null) this.learn(decoded.announcement)
      if (decoded.openJobs != null) {
        for (const [, value] of this.indexMap ?? []) {
          const v = this.verifier.verify(value, ANNOUNCEMENT_DOMAIN)
          if (v?.signer === this.self) this.publish(jobsTopic(), { announcement: value as Uint8Array<ArrayBuffer> })
        }
      }
      return
    }
    if (ctx == null) return
    if (decoded.room != null) {
      ctx.announced.set(decoded.room.macroIndex, { open: decoded.room.open, at: this.clock(), owner: from })
      ctx.wake?.()
    }
    if (decoded.openMacro != null) {
      for (const room of ctx.rooms.values()) {
        const a = room.announcement()
        if (a != null && a.open > 0) this.publish(topic, { room: a })
      }
    }
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
    const hardware = this.init.hardware ?? { gpuModel: 'Any', vramGb: 0 }
    while (!signal.aborted) {
      const candidates = [...this.jobs.values()]
        .filter(j => !this.completed.has(j.jobId))
        .map(j => ({ id: j.jobId, value: j.value, minVramGb: j.minVramGb, gpuModel: j.gpuModel, modelId: j.modelId, job: j }))
      let choice: (typeof candidates)[number] | undefined
      for (const group of healthyFirst(candidates, this.failedAt)) {
        choice = chooseJob(group, hardware)
        if (choice != null) break
      }
      if (choice == null) {
        await this.idle(signal)
        continue
      }
      try {
        await this.workOn(choice.job, signal)
      } catch (err) {
        if (!signal.aborted) log.error('job %s: %e', choice.job.jobId, err)
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
    const docName = roundDocName(job.jobId, job.round)
    const doc = await this.components.docs.open(docName)
    const docs = this.components.docs
    const confirm = docs.confirm == null ? undefined : async (options: AbortOptions) => docs.confirm?.(docName, options)
    const slicing = sliceJob(job.spec, job.jobId)
    const verifier = excluded == null ? this.verifier : excludingVerifier(this.verifier, excluded)
    const components = { signer: this.signer, verifier, metrics: this.metrics }
    const progress = new JobProgress(components, doc.getMap<Uint8Array>(RESULTS_MAP), job.key, slicing.microJobs.length)
    const failures = new JobFailures(components, doc.getMap<Uint8Array>(FAILURES_MAP), job.key, this.init.failures)
    const microLeases = this.leases.table(doc.getMap<Uint8Array>(MICRO_MAP), microScope(job.key))
    const results = resultTable(components, doc.getMap<Uint8Array>(RESULTS_MAP), job.key)
    const batch = new ResultBatch({ transact: (fn) => { doc.transact(fn) }, results, microLeases }, {
      flushMs: this.init.resultFlushMs ?? DEFAULT_RESULT_FLUSH_MS,
      onWritten: (written) => { if (ctx != null) this.resultsWritten(ctx, written) }
    })
    ctx = {
      job,
      doc,
      slicing,
      macroLeases: this.leases.table(doc.getMap<Uint8Array>(MACRO_MAP), macroScope(job.key), { confirm }),
      microLeases,
      results,
      progress,
      failures,
      batch,
      rooms: new Map(),
      announced: new Map(),
      lastLocalResult: 0,
      finalized: false
    }
    const c = ctx
    progress.addEventListener('complete', (evt) => { void this.jobComplete(c, evt.detail.local) })
    progress.addEventListener('microjob:done', () => { c.wake?.() })
    failures.addEventListener('failed', (evt) => { this.giveUp(c, evt.detail) })
    this.contexts.set(job.jobId, ctx)
    this.unguards.set(macroTopic(job.key), guardCoordTopic(this.components.pubsub, macroTopic(job.key), { maxMessageBytes: this.maxBytes, metrics: this.metrics }))
    this.components.pubsub.subscribe(macroTopic(job.key))
    if (progress.complete) void this.jobComplete(ctx, false)
    else if (failures.failed) this.giveUp(ctx, failures.summary())
    return ctx
  }

  /**
   * Poison isolation: the job's MicroJobs fail everywhere (or too often here). This peer leaves its rooms and never
   * chooses it again; the failures stay in the CRDT for every other reader (the SDK reports the job failed).
   */
  private giveUp (ctx: JobContext, detail: { attempts: number, peers: number, reasons: string[] }): void {
    if (ctx.finalized) return
    ctx.finalized = true
    const jobId = ctx.job.jobId
    this.completed.add(jobId)
    this.failed.add(jobId)
    log('job %s given up: %d failed attempts by %d peers (%s)', jobId, detail.attempts, detail.peers, detail.reasons.join(', '))
    for (const room of ctx.rooms.values()) room.close()
    ctx.wake?.()
    this.safeDispatch('job:failed', { jobId, ...detail })
  }

  private async jobComplete (ctx: JobContext, local: boolean): Promise<void> {
    if (ctx.finalized) return
    ctx.finalized = true
    this.completed.add(ctx.job.jobId)
    const finalizer = local || this.clock() - ctx.lastLocalResult <= DEFAULT_COMPLETION_WINDOW_MS
    log('job %s complete (finalizer %s)', ctx.job.jobId, finalizer)
    this.safeDispatch('job:complete', { jobId: ctx.job.jobId, finalizer })
    for (const room of ctx.rooms.values()) room.close()
    ctx.wake?.()
    if (finalizer && this.init.onJobComplete != null) {
      try {
        await this.init.onJobComplete(ctx.job.jobId)
      } catch (err) {
        log.error('onJobComplete(%s): %e', ctx.job.jobId, err)
      }
    }
  }

  private room (ctx: JobContext, macroIndex: number): MacroRoom {
    let room = ctx.rooms.get(macroIndex)
    if (room != null) return room
    const macro = ctx.slicing.macroJobs[macroIndex]
    room = new MacroRoom({
      pubsub: this.components.pubsub,
      peerId: this.self,
      leases: this.leases,
      verifier: this.verifier,
      macroLeases: ctx.macroLeases,
      microLeases: ctx.microLeases,
      progress: ctx.progress,
      metrics: this.metrics,
      clock: this.clock,
      lastSeen: (peer) => this.seen.get(peer),
      counters: this.components.counters
    }, {
      jobId: ctx.job.key,
      macroIndex,
      macroId: macro.macroId,
      size: macro.microIds.length,
      heartbeatMs: this.init.heartbeatMs,
      ownerTimeoutMs: this.init.ownerTimeoutMs,
      maxBatch: this.init.maxBatch,
      maxMessageBytes: this.maxBytes
    })
    const key = `${ctx.job.jobId}/${macroIndex}`
    const owners = this.owners.get(key) ?? new Set<string>()
    this.owners.set(key, owners)
    room.addEventListener('snapshot', (evt) => {
      owners.add(evt.detail.owner)
      this.safeDispatch('room:owner', { jobId: ctx.job.jobId, macroIndex, owner: evt.detail.owner, epoch: evt.detail.epoch, term: evt.detail.term })
    })
    room.addEventListener('ownership', (evt) => {
      owners.add(this.self)
      this.safeDispatch('room:owner', { jobId: ctx.job.jobId, macroIndex, owner: this.self, epoch: evt.detail.epoch, term: evt.detail.term })
      this.safeDispatch('ownership', { jobId: ctx.job.jobId, macroIndex, epoch: evt.detail.epoch, term: evt.detail.term })
    })
    room.addEventListener('complete', () => { ctx.wake?.() })
    ctx.rooms.set(macroIndex, room)
    room.start()
    return room
  }

  /** Picks a MacroJob room with open items: an announced room, else claims an open MacroJob lease. */
  private async findRoom (ctx: JobContext, signal: AbortSignal): Promise<MacroRoom | undefined> {
    const now = this.clock()
    const rooms = new Map<number, { hasOpen: boolean, complete: boolean }>()
    for (const [m, room] of ctx.rooms) {
      rooms.set(m, { hasOpen: room.state != null && countStates(room.state.states).open > 0, complete: room.isComplete })
    }
    const choice = chooseRoom({
      now,
      macroJobs: ctx.slicing.macroJobs.length,
      ttlMs: DEFAULT_ANNOUNCEMENT_TTL_MS,
      announced: ctx.announced,
      rooms,
      macroDone: (m) => ctx.rooms.get(m)?.isComplete === true || this.macroDone(ctx, m),
      macroLeaseOpen: (m) => ctx.macroLeases.isOpen(macroKey(m)),
      rank: (m) => macroRank(this.self, ctx.job.jobId, m)
    })
    if (choice.kind === 'join') {
      ctx.announced.delete(choice.macroIndex)
      return this.room(ctx, choice.macroIndex)
    }
    if (choice.kind === 'claim') {
      const m = choice.macroIndex
      try {
        const room = this.room(ctx, m)
        const lease = await ctx.macroLeases.claim(macroKey(m), { signal })
        const rival = ctx.announced.get(m)
        if (rival != null && rival.owner !== this.self && rival.at >= now) {
          return room // another peer opened this room while we settled: join it
        }
        if (room.state == null || room.state.epoch < lease.term) room.create(lease)
        const a = room.announcement()
        if (a != null) this.publish(macroTopic(ctx.job.key), { room: a })
        return room
      } catch (err) {
        if (signal.aborted) throw err
        log('claim of MacroJob %d failed: %s', m, (err as Error).message)
        return undefined
      }
    }
    // ask rooms to announce themselves
    this.publish(macroTopic(ctx.job.key), { openMacro: { nonce: BigInt(now) } })
    await this.waitFor(ctx, signal, this.init.discoveryMs ?? DEFAULT_DISCOVERY_MS)
    return undefined
  }

  /** Every MicroJob of MacroJob `m` has a result (the per-MacroJob count first: no scan while it is short). */
  private macroDone (ctx: JobContext, m: number): boolean {
    const size = ctx.slicing.macroJobs[m].microIds.length
    if (ctx.progress.doneIn(m) < size) return false
    for (let i = 0; i < size; i++) {
      if (!ctx.progress.has(microKey(m, i))) return false
    }
    return true
  }

  private async waitFor (ctx: JobContext, signal: AbortSignal, ms: number): Promise<void> {
    if (signal.aborted) return
    await new Promise<void>(resolve => {
      const timer = setTimeout(done, ms)
      function done (): void {
        clearTimeout(timer)
        // the loop's signal lives as long as the processor: a listener left behind per wait is a leak
        signal.removeEventListener('abort', done)
        resolve()
      }
      ctx.wake = done
      signal.addEventListener('abort', done, { once: true })
    })
    ctx.wake = undefined
  }

  /** A later round of the job was announced: leave the earlier round's rooms and doc context (processor/rounds.ts). */
  private retireRound (jobId: string): void {
    this.completed.delete(jobId)
    this.failed.delete(jobId)
    const ctx = this.contexts.get(jobId)
    if (ctx == null) return
    this.contexts.delete(jobId)
    ctx.finalized = true
    ctx.batch.flush()
    for (const room of ctx.rooms.values()) room.close()
    ctx.progress.stop()
    ctx.failures.stop()
    ctx.wake?.()
    this.components.pubsub.unsubscribe(macroTopic(ctx.job.key))
    this.unguards.get(macroTopic(ctx.job.key))?.()
    this.unguards.delete(macroTopic(ctx.job.key))
    log('job %s: round %d retired', jobId, ctx.job.round)
  }

  private async workOn (job: KnownJob, signal: AbortSignal): Promise<void> {
    if (this.init.prepareJob != null && !this.prepared.has(job.specCid)) {
      try {
        await this.init.prepareJob({ jobId: job.jobId, specCid: job.specCid, spec: job.spec }, { signal })
      } catch (err) {
        // its inputs are not to be had now: other jobs first (poison isolation's order)
        this.failedAt.set(job.jobId, this.clock())
        throw err
      }
      this.prepared.add(job.specCid)
    }
    const ctx = await this.context(job)
    if (ctx == null) return
    let readyAt = this.clock()
    let idleRounds = 0
    while (!signal.aborted && !ctx.finalized) {
      const room = await this.findRoom(ctx, signal)
      if (room == null) {
        idleRounds++
        if (idleRounds > 20) return // nothing open here for a while: look at other jobs
        continue
      }
      let items: LockedItem[]
      try {
        items = await room.next(this.init.want ?? DEFAULT_WANT, { signal })
      } catch (err) {
        if (signal.aborted || (err as Error).name === 'RoomClosedError') continue
        throw err
      }
      const lockedAt = this.clock()
      if (items.length === 0) {
        idleRounds++
        await this.waitFor(ctx, signal, Math.min(50 * idleRounds, this.init.idleMs ?? DEFAULT_IDLE_MS))
        continue
      }
      idleRounds = 0
      let failed = false
      try {
        for (const [n, item] of items.entries()) {
          if (signal.aborted) return
          const f = await this.runItem(ctx, room, item, readyAt, lockedAt, signal)
          if (f === 'failed') {
            // poison isolation: hand the rest of the batch back at once (the owner re-opens released leases) and
            // go back to the job choice, where this job now comes after every healthy one
            for (const rest of items.slice(n + 1)) ctx.microLeases.release(microKey(rest.macroIndex, rest.index), rest.leaseTerm)
            failed = true
            break
          }
          readyAt = this.clock()
        }
      } finally {
        // the turn's results go into the job doc together: one CRDT update per turn (or per resultFlushMs when its
        // MicroJobs are long), not one per MicroJob
        if (!signal.aborted) ctx.batch.flush()
      }
      if (failed) return
    }
  }

  /** A MicroJob failed here: recorded in the CRDT (it counts against the job), and the job goes to the back. */
  private itemFailed (ctx: JobContext, item: LockedItem, err: Error): void {
    const jobId = ctx.job.jobId
    this.failedAt.set(jobId, this.clock())
    const local = (this.localFailures.get(jobId) ?? 0) + 1
    this.localFailures.set(jobId, local)
    try {
      ctx.failures.record(item.macroIndex, item.index, item.leaseTerm, err.name)
    } catch (e) {
      log.error('cannot record the failure of %s %d.%d: %e', jobId, item.macroIndex, item.index, e)
    }
    if (ctx.failures.failed) {
      this.giveUp(ctx, ctx.failures.summary())
    } else if (local >= (this.init.localMaxFailures ?? DEFAULT_LOCAL_MAX_FAILURES)) {
      this.giveUp(ctx, { ...ctx.failures.summary(), attempts: local, peers: 1 })
    }
  }

  /** Results are in the job doc: the rooms and listeners learn of them, and the job's peers get one notice. */
  private resultsWritten (ctx: JobContext, written: FinishedMicroJob[]): void {
    ctx.lastLocalResult = this.clock()
    const byMacro = new Map<number, Finished[]>()
    for (const f of written) {
      ctx.rooms.get(f.macroIndex)?.done(f.index)
      const list = byMacro.get(f.macroIndex) ?? []
      list.push({ index: f.index, term: f.leaseTerm, outputHash: f.outputHash })
      byMacro.set(f.macroIndex, list)
      this.safeDispatch('microjob:done', { jobId: ctx.job.jobId, macroIndex: f.macroIndex, index: f.index, leaseTerm: f.leaseTerm, outputHash: f.outputHash })
    }
    for (const [macroIndex, finished] of byMacro) this.announceCompleted(ctx, macroIndex, finished)
  }

  /**
   * DESIGN 7 step 5: one "MicroJobs complete" notice per result write (a queue turn), listing what
   * this peer finished, on the job's topic: only the job's peers get it (on /jobs every peer of the network would
   * receive and verify every notice of every job).
   */
  private announceCompleted (ctx: JobContext, macroIndex: number, finished: Finished[]): void {
    if (finished.length === 0 || this.init.announceComplete === false) return
    this.publish(macroTopic(ctx.job.key), { completed: { jobId: hexToBytes(ctx.job.jobId), macroIndex, items: finished } })
  }

  private async runItem (ctx: JobContext, room: MacroRoom, item: LockedItem, readyAt: number, lockedAt: number,
    signal: AbortSignal): Promise<'failed' | undefined> {
    const d = ctx.slicing.microJobs[item.macroIndex * ctx.job.spec.slicing.microJobsPerMacro + item.index]
    const key = microKey(item.macroIndex, item.index)
    if (ctx.progress.has(key)) {
      room.done(item.index)
      return
    }
    // the CRDT lease decides: a rival queue (same MacroJob, concurrent epoch) may have taken the item meanwhile
    if (!ctx.microLeases.holds(key, item.leaseTerm)) {
      log('%s skips %s: lease term %d no longer held', this.self.slice(-6), key, item.leaseTerm)
      room.lost(item.index)
      return
    }
    const task: MicroJobTask = {
      jobId: ctx.job.jobId, spec: ctx.job.spec, macroIndex: d.macroIndex, index: d.index, microId: d.microId,
      start: d.start, end: d.end
    }
    log('%s runs %s term %d (room owner %s epoch %d term %d)', this.self.slice(-6), key, item.leaseTerm, room.state?.owner.slice(-6), room.state?.epoch, room.state?.term)
    const started = this.clock()
    this.safeDispatch('microjob:start', {
      jobId: task.jobId, macroIndex: d.macroIndex, index: d.index, leaseTerm: item.leaseTerm,
      waitMs: started - readyAt, claimToStartMs: started - lockedAt
    })
    const renew = setInterval(() => { ctx.microLeases.renew(key, item.leaseTerm) }, this.leases.renewMs)
    try {
      const output = await this.init.executor.run(task, { signal, timeoutMs: runTimeoutMs(ctx.job.spec) })
      const outputHash = new Uint8Array(createHash('sha256').update(output).digest())
      let outputCid = await this.init.storeOutput?.(output)
      if (outputCid != null && outputCid === CID.createV1(0x55, Digest.create(0x12, outputHash)).toString()) {
        outputCid = undefined
      }
      // the result decides from now on (every reader treats "result present" as done): the lease goes in the same
      // update, which saves its signed record in the doc (DESIGN 11: < 300 bytes per MicroJob); the turn's results
      // share that update (result-batch.ts)
      ctx.batch.add({ macroIndex: d.macroIndex, index: d.index, leaseTerm: item.leaseTerm, outputHash: outputHash as Uint8Array<ArrayBuffer>, size: output.length, outputCid })
    } catch (err) {
      if (signal.aborted) return
      log.error('MicroJob %s failed: %e', key, err)
      ctx.microLeases.release(key, item.leaseTerm)
      this.safeDispatch('microjob:error', { jobId: task.jobId, macroIndex: d.macroIndex, index: d.index, error: err as Error })
      this.itemFailed(ctx, item, err as Error)
      return 'failed'
    } finally {
      clearInterval(renew)
    }
  }
}

function specValue (spec: JobSpec): bigint {
  return taskValue(spec.price, estimatedSeconds(spec.estimate, spec.slicing.macroJobs * spec.slicing.microJobsPerMacro))
}

function hexToBytes (hex: string): Uint8Array<ArrayBuffer> {
  const h = hex.startsWith('0x') ? hex.slice(2) : hex
  return new Uint8Array(Buffer.from(h, 'hex'))
}

function bytesToHex (bytes: Uint8Array): string {
  return `0x${Buffer.from(bytes).toString('hex')}`
}

/**
 * Creates a processor (DESIGN 7 loop): finds open jobs on /jobs and in `jobmesh/index`, picks one with
 * `chooseJob`, joins or creates MacroJob rooms, takes MicroJobs from the queue, runs them through the executor,
 * writes signed results to the job doc and announces completion.
 */
export function createProcessor (components: ProcessorComponents, init: ProcessorInit): Processor {
  return new JobProcessor(components, init)
}
