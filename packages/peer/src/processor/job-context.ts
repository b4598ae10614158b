import {
  FAILURES_MAP, JobFailures, JobProgress, MACRO_MAP, macroDocs, macroScope, RESULTS_MAP, SUMMARY_MAP, summaryScope
} from '../coord/index.js'
import { macroDocName, roundDocName } from '../crdt/index.js'
import { sliceJob } from '../protocol/index.js'
import { DEFAULT_CATCH_UP_WAIT_MS, DEFAULT_RESULT_FLUSH_MS, MACRO_RESYNC_MS } from './constants.js'
import { ResultBatch } from './result-batch.js'
import { TurnSize } from './turn-size.js'
import type { FinishedMicroJob } from './result-batch.js'
import type {
  CoordMetrics, JobFailuresInit, Leases, LeaseTable, MacroDocs, MacroRoom, RecordSigner, RecordVerifier, ResultTable
} from '../coord/index.js'
import type { Slicing } from '../protocol/index.js'
import type { ConfirmOptions, ConfirmResult, OpenOptions } from '../crdt/index.js'
import type * as Y from 'yjs'
import type { KnownJob } from '../jobs/index.js'


/** What this peer holds of one job (one round) it works on: its doc, tables, rooms and unwritten results. */
export interface JobContext {
  job: KnownJob
  doc: Y.Doc
  slicing: Slicing
  macroLeases: LeaseTable
  microLeases: LeaseTable
  results: ResultTable
  progress: JobProgress
  failures: JobFailures
  rooms: Map<number, MacroRoom>
  /** macroIndex -> { open, at, owner } from RoomAnnouncements. */
  announced: Map<number, { open: number, at: number, owner: string }>
  /**
   * MacroJobs whose lease this peer claimed and lost to a concurrent claimant: it is subscribed to their rooms (it
   * joined to claim) and leaves them when its next room choice goes elsewhere (rooms.ts).
   */
  lostClaims: Set<number>
  lastLocalResult: number
  /** When this peer or another last asked the job's rooms to announce themselves (`openMacro`, ms; the answers reach all). */
  discoveredAt: number
  /** When this peer first chose a room in the job (ms, the processor's clock): its start order's wait counts from here. */
  firstChoiceAt?: number
  /** This peer's finished MicroJobs not yet written (result-batch.ts). */
  batch: ResultBatch
  /** How many MicroJobs to ask for per turn, from the run times measured here (turn-size.ts). */
  turnSize: TurnSize
  finalized: boolean
  /** This peer's join of the job is on chain (`ProcessorInit.joinJob` resolved): its turns may run. */
  joined?: boolean
  /** This peer left the job's round (job-rounds.ts `leaveJob`: over on chain, or a new round): its turns stop. */
  left?: boolean
  /** When a result of this peer's own last finished a MacroJob (rooms.ts `noteOwnResult`). */
  ownFinishAt?: number
  /** This peer's own result finished the job's last room to finish (rooms.ts `checkFinishedLast`): it finalizes (job-end.ts). */
  finishedLast?: boolean
  /**
   * MacroJobs whose summary came here before anybody claimed them (no lease of theirs in the job doc): their docs are
   * read at once, and their summaries never end the job here (rooms.ts `followSummaries`).
   */
  unbelieved: Set<number>
  /** The pending check of the summaries that ended the job here (summary-check.ts). */
  summaryCheck?: ReturnType<typeof setTimeout>
  /** The docs of the job's MacroJobs this peer joined or checked; `microLeases` and `results` read them. */
  macroDocs: MacroDocs
  /** Opens MacroJob `m`'s doc (once; a catch-up from one peer that holds it) and follows its results. */
  openMacro(m: number, signal?: AbortSignal): Promise<void>
  /**
   * Reads finished MacroJob `m`'s doc, which this peer did not work on: one catch-up, no subscription (its holders
   * then exchange nothing with this peer; its room writes it no more). Resolves when the catch-up is done; its results
   * count here from then on (until then its summary is a hint).
   */
  readMacro(m: number): Promise<void>
  /**
   * Exchanges MacroJob `m`'s doc again with the connected peers that hold it (at most every few seconds): resolves when
   * the exchanges are done, at once when one ran too recently.
   */
  resyncMacro(m: number): Promise<void>
  /** Writes this peer's summary of finished MacroJob `m` into the job doc, unless a valid one is there. */
  summarize(m: number): void
  wake?(): void
}

export interface JobContextComponents {
  docs: { open(name: string, options?: Pick<OpenOptions, 'catchUp' | 'catchUpWaitMs' | 'signal' | 'follow' | 'askFirst'>): Promise<Y.Doc>, confirm?(name: string, options?: ConfirmOptions): Promise<ConfirmResult> }
  signer: RecordSigner
  /** The verifier for this round (slashed submitters' records excluded in a round > 0). */
  verifier: RecordVerifier
  leases: Leases
  metrics: CoordMetrics
}

export interface JobContextInit {
  resultFlushMs?: number
  /** Ends the doc's open (the processor stopping). */
  signal?: AbortSignal
  failures?: JobFailuresInit
  /** Results were written to the doc (result-batch.ts). */
  onWritten(ctx: JobContext, written: FinishedMicroJob[]): void
}

/**
 * Opens the job doc of `job`'s round and builds what the processor works with: the signed lease tables (the
 * MacroJob claim confirms with its possible rivals when the doc store can), results, progress, failures and the
 * result batch.
 */
export async function openJobContext (components: JobContextComponents, job: KnownJob, init: JobContextInit): Promise<JobContext> {
  const docName = roundDocName(job.jobId, job.round)
  // one peer's answer is enough to start: the MacroJob claim confirms with its possible rivals before it counts. And
  // not for long: at a new job that answer comes from a peer busy with every other peer's exchanges (0.2-0.6 s at
  // proc:8), while what this peer chooses first does not need it (rooms being opened have subscribers, which it
  // joins and never claims; a room's queue is built from the doc when its claim settles)
  const doc = await components.docs.open(docName, { catchUp: 'first', catchUpWaitMs: DEFAULT_CATCH_UP_WAIT_MS, signal: init.signal })
  const docs = components.docs
  const confirm = docs.confirm == null ? undefined : async (options: ConfirmOptions) => docs.confirm?.(docName, options)
  const slicing = sliceJob(job.spec, job.jobId)
  const records = { signer: components.signer, verifier: components.verifier, metrics: components.metrics }
  const size = (m: number): number => slicing.macroJobs[m]?.size ?? 0
  // the results live in the MacroJobs' docs: the job doc's `results` map is nobody's (docs/coordination.md)
  const progress = new JobProgress(records, job.key, slicing.microJobs.length, size)
  progress.watchSummaries(doc.getMap<Uint8Array>(SUMMARY_MAP))
  const failures = new JobFailures(records, doc.getMap<Uint8Array>(FAILURES_MAP), job.key, { ...init.failures, sizeOf: size })
  const docsOfMacros = macroDocs({ ...records, docs: components.docs, leases: components.leases }, {
    roundDoc: docName,
    jobKey: job.key,
    size,
    onOpen: (m, md) => { progress.watch(md.doc.getMap<Uint8Array>(RESULTS_MAP), m) }
  })
  const openMacro = async (m: number, signal?: AbortSignal): Promise<void> => {
    await docsOfMacros.open(m, { catchUp: 'first', catchUpWaitMs: DEFAULT_CATCH_UP_WAIT_MS, signal })
  }
  const readMacro = async (m: number): Promise<void> => {
    // from the summary's signer first (it held every result when it signed; another member may lag behind), and the
    // whole catch-up before the doc counts here: until then its summary is a hint (the MacroJob is not chosen)
    const summarizer = progress.summarizer(m)
    await docsOfMacros.open(m, { catchUp: 'first', follow: false, askFirst: summarizer == null ? undefined : [summarizer] })
  }
  const resyncedAt = new Map<number, number>()
  const resyncMacro = async (m: number): Promise<void> => {
    const now = Date.now()
    if (docs.confirm == null || now - (resyncedAt.get(m) ?? 0) < MACRO_RESYNC_MS) return
    resyncedAt.set(m, now)
    await docs.confirm(macroDocName(docName, m), { timeoutMs: MACRO_RESYNC_MS }).catch(() => {})
  }
  const summaries = doc.getMap<Uint8Array>(SUMMARY_MAP)
  const summarize = (m: number): void => {
    if (progress.summarized(m)) return
    summaries.set(String(m), components.signer.sign(`${summaryScope(job.key)}/${m}`, new TextEncoder().encode(String(size(m)))))
  }
  const microLeases = docsOfMacros.microLeases
  const results = docsOfMacros.results
  const batch = new ResultBatch({
    transact: (m, fn) => { docsOfMacros.transact(m, fn) },
    results,
    microLeases,
    clock: () => components.leases.now()
  }, {
    flushMs: init.resultFlushMs ?? DEFAULT_RESULT_FLUSH_MS,
    onWritten: (written) => { init.onWritten(ctx, written) }
  })
  const ctx: JobContext = {
    job,
    doc,
    slicing,
    macroLeases: components.leases.table(doc.getMap<Uint8Array>(MACRO_MAP), macroScope(job.key), { confirm }),
    microLeases,
    results,
    progress,
    failures,
    batch,
    turnSize: new TurnSize(),
    rooms: new Map(),
    announced: new Map(),
    lostClaims: new Set(),
    unbelieved: new Set(),
    discoveredAt: 0,
    lastLocalResult: 0,
    finalized: false,
    macroDocs: docsOfMacros,
    openMacro,
    readMacro,
    resyncMacro,
    summarize
  }
  return ctx
}
