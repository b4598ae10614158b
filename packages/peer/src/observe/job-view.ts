import {
  FAILURES_MAP, followMacroDocs, JobFailures, JobProgress, leases, MACRO_MAP, macroKey, macroScope, recordSigner, recordVerifier,
  RESULTS_MAP, SUMMARY_MAP, TypedEvents
} from '../coord/index.js'
import { macroDocName, roundDocName } from '../crdt/index.js'
import type { AnnouncedJob } from './announced-jobs.js'
import type { FailureSummary, LeaseTable } from '../coord/index.js'
import type { PrivateKey } from '@libp2p/interface'
import type * as Y from 'yjs'

/** Owner changes of a MacroJob queue kept per job (for the dashboard's "ownership moving"). */
const MAX_MOVES = 50

export interface MacroView {
  macroIndex: number
  size: number
  done: number
  /** Current queue owner (PeerId) as last seen in the room, else the MacroJob lease holder. */
  owner?: string
  /** Owner changes seen. */
  moves: number
}

export interface OwnerMove {
  at: number
  macroIndex: number
  from?: string
  to: string
}

export interface JobProgressView {
  jobId: string
  round: number
  done: number
  total: number
  macros: MacroView[]
  moves: OwnerMove[]
  /** Failed MicroJob attempts recorded in the doc (poison isolation); `failed`: the peers gave the job up. */
  failures?: FailureSummary
}

export interface JobViewComponents {
  docs: { open(name: string, options?: { signal?: AbortSignal }): Promise<Y.Doc>, get?(name: string): Y.Doc | undefined }
  privateKey: PrivateKey
  peerId: string
}

export interface JobViewEvents {
  /** Progress or owners changed. */
  change: { jobId: string }
}

/**
 * A job's live progress and queue owners from its round's CRDT doc: per-MacroJob done counts (signed results), the
 * MacroJob lease holders, and the owners the processor reports from its rooms.
 */
export class JobView extends TypedEvents<JobViewEvents> {
  readonly job: AnnouncedJob
  private progress: JobProgress | undefined
  private failures: JobFailures | undefined
  private macroLeases: LeaseTable | undefined
  private macroMap: Y.Map<Uint8Array> | undefined
  private readonly owners = new Map<number, { owner: string, moves: number }>()
  private readonly moves: OwnerMove[] = []
  private readonly onMacro = (): void => { this.safeDispatch('change', { jobId: this.job.jobId }) }
  private stopped = false
  /** Released on chain: every MicroJob has a result in the released manifest. */
  private released = false
  private roundDoc: string | undefined
  private docs: JobViewComponents['docs'] | undefined

  constructor (job: AnnouncedJob) {
    super()
    this.job = job
  }

  /**
   * Opens the round's doc (catching up from peers) and starts tracking it. The MicroJobs' results are in the
   * MacroJobs' docs: `macroDocs: 'all'` opens them too (a one-off reader, `describe`); by default the view counts the
   * ones this node holds anyway (the rooms its processor joined) and the summaries of finished MacroJobs, so that
   * watching a job does not make a peer a member of every MacroJob's doc.
   */
  async open (components: JobViewComponents, options: { signal?: AbortSignal, macroDocs?: 'all' | 'held' } = {}): Promise<void> {
    const roundDoc = roundDocName(this.job.jobId, this.job.round)
    const doc = await components.docs.open(roundDoc, { signal: options.signal })
    // a newer round replaced this view while its doc was opening: nothing to follow
    if (this.stopped) return
    const verifier = recordVerifier()
    const size = (m: number): number => m < this.job.macroJobs ? this.job.microJobsPerMacro : 0
    this.progress = new JobProgress({ verifier }, this.job.key, this.job.total, size)
    this.progress.addEventListener('microjob:done', () => { this.safeDispatch('change', { jobId: this.job.jobId }) })
    this.progress.addEventListener('summary', () => { this.safeDispatch('change', { jobId: this.job.jobId }) })
    this.progress.watchSummaries(doc.getMap<Uint8Array>(SUMMARY_MAP))
    this.roundDoc = roundDoc
    this.docs = components.docs
    if (options.macroDocs === 'all') await followMacroDocs(components.docs, this.progress, roundDoc, this.job.macroJobs, { signal: options.signal })
    else this.followHeld()
    this.failures = new JobFailures({ verifier }, doc.getMap<Uint8Array>(FAILURES_MAP), this.job.key, { sizeOf: size })
    this.failures.addEventListener('failed', () => { this.safeDispatch('change', { jobId: this.job.jobId }) })
    const table = leases({ signer: recordSigner(components.privateKey, components.peerId), verifier })
    this.macroMap = doc.getMap<Uint8Array>(MACRO_MAP)
    this.macroLeases = table.table(this.macroMap, macroScope(this.job.key))
    this.macroMap.observe(this.onMacro)
  }

  /** A queue owner seen in a room (the processor's `room:owner`). */
  ownerSeen (macroIndex: number, owner: string, at = Date.now()): void {
    const known = this.owners.get(macroIndex)
    if (known?.owner === owner) return
    this.owners.set(macroIndex, { owner, moves: (known?.moves ?? 0) + 1 })
    this.moves.push({ at, macroIndex, from: known?.owner, to: owner })
    if (this.moves.length > MAX_MOVES) this.moves.shift()
    this.safeDispatch('change', { jobId: this.job.jobId })
  }

  /** The job was released on chain: it is shown done, whatever of its results this node holds. */
  markReleased (): void {
    this.released = true
  }

  get done (): number {
    return this.released ? this.job.total : this.progress?.shown() ?? 0
  }

  view (): JobProgressView {
    this.followHeld()
    const macros: MacroView[] = []
    for (let m = 0; m < this.job.macroJobs; m++) {
      const seen = this.owners.get(m)
      const done = this.released || this.progress?.hinted(m) === true ? this.job.microJobsPerMacro : this.progress?.doneIn(m) ?? 0
      const lease = this.macroLeases?.get(macroKey(m))
      macros.push({ macroIndex: m, size: this.job.microJobsPerMacro, done, owner: seen?.owner ?? lease?.owner, moves: seen?.moves ?? 0 })
    }
    return { jobId: this.job.jobId, round: this.job.round, done: this.done, total: this.job.total, macros, moves: [...this.moves], failures: this.failures?.summary() }
  }

  /** Counts the results of the MacroJob docs this node holds open (its processor's rooms). */
  private followHeld (): void {
    const { progress, docs, roundDoc } = this
    if (progress == null || docs?.get == null || roundDoc == null) return
    for (let m = 0; m < this.job.macroJobs; m++) {
      const doc = docs.get(macroDocName(roundDoc, m))
      if (doc != null) progress.watch(doc.getMap<Uint8Array>(RESULTS_MAP), m)
    }
  }

  stop (): void {
    this.stopped = true
    this.progress?.stop()
    this.failures?.stop()
    this.macroMap?.unobserve(this.onMacro)
  }
}
