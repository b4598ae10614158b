import { TypedEvents } from './events.js'
import { parseResultKey, resultScope, resultSlot } from './keys.js'
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
  private readonly observer: (event: Y.YMapEvent<Uint8Array>) => void
  private stopped = false

  constructor (components: JobProgressComponents, map: Y.Map<Uint8Array>, jobId: string, total: number) {
    super()
    this.components = components
    this.map = map
    this.total = total
    this.scope = resultScope(jobId)
    for (const key of map.keys()) {
      this.check(key)
    }
    this.observer = (event) => {
      const local = event.transaction.local
      for (const key of event.keysChanged) {
        const added = this.check(key)
        if (added != null) {
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

  /** Verifies one results key; returns the MicroJob key if it became done. */
  private check (key: string): string | undefined {
    const parsed = parseResultKey(key)
    if (parsed == null || this.done.has(parsed.micro)) {
      return undefined
    }
    const value = this.map.get(key)
    if (!(value instanceof Uint8Array)) {
      return undefined
    }
    const record = this.components.verifier.verify(value, `${this.scope}/${parsed.micro}`)
    if (record == null || resultSlot(record.signer) !== parsed.slot) {
      if (this.components.metrics != null) {
        this.components.metrics.invalidRecords++
      }
      return undefined
    }
    this.done.add(parsed.micro)
    const m = Number(parsed.micro.slice(0, parsed.micro.indexOf('.')))
    this.perMacro.set(m, (this.perMacro.get(m) ?? 0) + 1)
    return parsed.micro
  }
}
