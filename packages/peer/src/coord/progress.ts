import { TypedEvents } from './events.js'
import { macroOfResultKey, parseResultKey, resultScope, summaryScope } from './keys.js'
import { readResults } from './results.js'
import type { MacroSize } from './results.js'
import type { CoordMetrics } from './metrics.js'
import type { RecordVerifier } from './signing.js'
import type * as Y from 'yjs'

export interface JobProgressEvents {
  /** A MicroJob (`m.i`) got its first valid result. `detail.local` = written by this peer's own transaction. */
  'microjob:done': { key: string, local: boolean }
  /** Every MicroJob has a valid result. */
  complete: { local: boolean }
  /** A valid summary of finished MacroJob `macroIndex` arrived (`watchSummaries`). */
  summary: { macroIndex: number }
}

export interface JobProgressComponents {
  verifier: RecordVerifier
  metrics?: CoordMetrics
}

/**
 * Tracks which MicroJobs of a job have at least one valid result, incrementally (only changed keys are verified).
 */
export class JobProgress extends TypedEvents<JobProgressEvents> {
  readonly done = new Set<string>()
  readonly total: number
  /** MicroJob key -> the signer of the first valid result counted for it. */
  private readonly writers = new Map<string, string>()
  /** macroIndex -> MicroJobs of that MacroJob with a valid result. */
  private readonly perMacro = new Map<number, number>()
  private readonly watched: Array<{ map: Y.Map<Uint8Array>, observer: (event: Y.YMapEvent<Uint8Array>) => void }> = []
  private readonly jobId: string
  private readonly scope: string
  private readonly components: JobProgressComponents
  private readonly size?: MacroSize
  /** The MacroJobs a valid summary says finished, each with its signer (it held every result when it wrote it). */
  private readonly summarizers = new Map<number, string>()
  /** MacroJobs whose doc's results this tracker follows. */
  private readonly held = new Set<number>()
  private stopped = false

  /**
   * Counts nothing until it is given the `results` maps to follow ({@link watch}). `size` (MicroJobs per MacroJob,
   * when the reader knows the slicing): results for MicroJobs outside their MacroJob are not counted, so a peer cannot
   * make a job look complete with records for MicroJobs that do not exist.
   */
  constructor (components: JobProgressComponents, jobId: string, total: number, size?: MacroSize) {
    super()
    this.components = components
    this.total = total
    this.size = size
    this.jobId = jobId
    this.scope = resultScope(jobId)
  }

  /**
   * Follows a `results` map: MacroJob `macroIndex`'s doc's (docs/coordination.md, A doc per MacroJob), whose records
   * of other MacroJobs are not counted (nobody reads them there: settlement reads MacroJob m's results in m's doc
   * only). Without `macroIndex`, every record of the map counts (a map holding a whole job: tests, old docs). What it
   * already holds is counted now, with events.
   */
  watch (map: Y.Map<Uint8Array>, macroIndex?: number): void {
    if (this.stopped || this.watched.some(w => w.map === map)) return
    const check = (key: string): string[] => macroIndex == null || macroOfResultKey(key) === macroIndex ? this.check(map, key) : []
    const observer = (event: Y.YMapEvent<Uint8Array>): void => {
      this.dispatchAdded(Array.from(event.keysChanged).flatMap(check), event.transaction.local)
    }
    this.watched.push({ map, observer })
    if (macroIndex != null) this.held.add(macroIndex)
    this.dispatchAdded(Array.from(map.keys()).flatMap(check), false)
    map.observe(observer)
  }

  /**
   * Follows the job's MacroJob summaries (`SUMMARY_MAP` of the job doc): a valid summary says MacroJob m finished, for
   * the peers that do not hold m's doc. It does not make m's MicroJobs done here (only their signed results do:
   * a summary is one peer's word); it is a `summary` event, {@link summarized}, and counts in {@link shown}.
   */
  watchSummaries (map: Y.Map<Uint8Array>): void {
    if (this.stopped || this.watched.some(w => w.map === map)) return
    const check = (key: string): number[] => {
      const m = Number(key)
      const value = map.get(key)
      const size = this.size?.(m) ?? 0
      if (!Number.isSafeInteger(m) || m < 0 || size === 0 || this.summarizers.has(m) || !(value instanceof Uint8Array)) return []
      const record = this.components.verifier.verify(value, `${summaryScope(this.jobId)}/${key}`)
      if (record == null || new TextDecoder().decode(record.payload) !== String(size)) return []
      this.summarizers.set(m, record.signer)
      return [m]
    }
    const observer = (event: Y.YMapEvent<Uint8Array>): void => {
      for (const m of Array.from(event.keysChanged).flatMap(check)) this.safeDispatch('summary', { macroIndex: m })
    }
    this.watched.push({ map, observer })
    for (const m of Array.from(map.keys()).flatMap(check)) this.safeDispatch('summary', { macroIndex: m })
    map.observe(observer)
  }

  /** The PeerId of the peer whose summary says MacroJob m finished (it held every result then), if one does. */
  summarizer (macroIndex: number): string | undefined {
    return this.summarizers.get(macroIndex)
  }

  /** Whether a valid summary says MacroJob m finished (see {@link watchSummaries}). */
  summarized (macroIndex: number): boolean {
    return this.summarizers.has(macroIndex)
  }

  /**
   * Whether MacroJob m counts as finished on a summary's word alone: a summary says so and m's doc is not followed
   * here (where it is, its results decide). For what a reader shows and chooses, never for completion.
   */
  hinted (macroIndex: number): boolean {
    return this.summarizers.has(macroIndex) && !this.held.has(macroIndex)
  }

  /** MicroJobs to show as done: those with a valid result here, and all of each {@link hinted} MacroJob. */
  shown (): number {
    let n = this.done.size
    for (const m of this.summarizers.keys()) if (this.hinted(m)) n += Math.max(0, (this.size?.(m) ?? 0) - this.doneIn(m))
    return Math.min(n, this.total)
  }

  private dispatchAdded (added: string[], local: boolean): void {
    for (const key of added) {
      this.safeDispatch('microjob:done', { key, local })
      if (this.done.size === this.total) {
        this.safeDispatch('complete', { local })
      }
    }
  }

  private add (micro: string, m: number): void {
    this.done.add(micro)
    this.perMacro.set(m, (this.perMacro.get(m) ?? 0) + 1)
  }

  get complete (): boolean {
    return this.done.size >= this.total
  }

  has (key: string): boolean {
    return this.done.has(key)
  }

  /** Who signed the first valid result counted for MicroJob `key` (undefined: none yet). */
  writer (key: string): string | undefined {
    return this.writers.get(key)
  }

  /** How many MicroJobs of MacroJob `macroIndex` have a valid result. */
  doneIn (macroIndex: number): number {
    return this.perMacro.get(macroIndex) ?? 0
  }

  /** Stops following the map; idempotent (a job context is closed on stop and on job end, which may both happen). */
  stop (): void {
    if (this.stopped) return
    this.stopped = true
    for (const { map, observer } of this.watched) map.unobserve(observer)
  }

  /** Verifies one results key (a one-MicroJob or a turn record); returns the MicroJob keys that became done. */
  private check (map: Y.Map<Uint8Array>, key: string): string[] {
    const parsed = parseResultKey(key)
    if (parsed == null || this.done.has(parsed.micro)) return []
    const results = readResults(this.components.verifier, this.scope, key, map.get(key), this.size)
    if (results == null) {
      if (map.has(key) && this.components.metrics != null) this.components.metrics.invalidRecords++
      return []
    }
    const added: string[] = []
    for (const [micro, result] of results) {
      if (this.done.has(micro)) continue
      this.writers.set(micro, result.signer)
      this.add(micro, Number(micro.slice(0, micro.indexOf('.'))))
      added.push(micro)
    }
    return added
  }
}
