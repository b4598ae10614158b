import { TypedEvents } from './events.js'
import { parseResultKey, resultScope } from './keys.js'
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
  /** macroIndex -> MicroJobs of that MacroJob with a valid result. */
  private readonly perMacro = new Map<number, number>()
  private readonly map: Y.Map<Uint8Array>
  private readonly scope: string
  private readonly components: JobProgressComponents
  private readonly size?: MacroSize
  private readonly observer: (event: Y.YMapEvent<Uint8Array>) => void
  private stopped = false

  /**
   * `size` (MicroJobs per MacroJob, when the reader knows the slicing): results for MicroJobs outside their MacroJob
   * are not counted, so a peer cannot make a job look complete with records for MicroJobs that do not exist.
   */
  constructor (components: JobProgressComponents, map: Y.Map<Uint8Array>, jobId: string, total: number, size?: MacroSize) {
    super()
    this.components = components
    this.map = map
    this.total = total
    this.size = size
    this.scope = resultScope(jobId)
    for (const key of map.keys()) {
      this.check(key)
    }
    this.observer = (event) => {
      const local = event.transaction.local
      for (const key of event.keysChanged) {
        for (const added of this.check(key)) {
          this.safeDispatch('microjob:done', { key: added, local })
          if (this.done.size === this.total) {
            this.safeDispatch('complete', { local })
          }
        }
      }
    }
    map.observe(this.observer)
  }

  get complete (): boolean {
    return this.done.size >= this.total
  }

  has (key: string): boolean {
    return this.done.has(key)
  }

  /** How many MicroJobs of MacroJob `macroIndex` have a valid result. */
  doneIn (macroIndex: number): number {
    return this.perMacro.get(macroIndex) ?? 0
  }

  /** Stops following the map; idempotent (a job context is closed on stop and on job end, which may both happen). */
  stop (): void {
    if (this.stopped) return
    this.stopped = true
    this.map.unobserve(this.observer)
  }

  /** Verifies one results key (a one-MicroJob or a turn record); returns the MicroJob keys that became done. */
  private check (key: string): string[] {
    const parsed = parseResultKey(key)
    if (parsed == null || this.done.has(parsed.micro)) return []
    const results = readResults(this.components.verifier, this.scope, key, this.map.get(key), this.size)
    if (results == null) {
      if (this.map.has(key) && this.components.metrics != null) this.components.metrics.invalidRecords++
      return []
    }
    const added: string[] = []
    for (const micro of results.keys()) {
      if (this.done.has(micro)) continue
      this.done.add(micro)
      const m = Number(micro.slice(0, micro.indexOf('.')))
      this.perMacro.set(m, (this.perMacro.get(m) ?? 0) + 1)
      added.push(micro)
    }
    return added
  }
}
