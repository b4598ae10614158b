import { DEFAULT_FAILURE_PEERS, DEFAULT_LOCAL_MAX_FAILURES, DEFAULT_MAX_FAILURES, MAX_FAILURE_DETAIL_CHARS, MAX_FAILURE_DETAILS } from './constants.js'
import { TypedEvents } from './events.js'
import { failureScope, keyIndex, microKey, parseResultKey, resultKey, resultSlot } from './keys.js'
import { FailureRecord } from './pb/coord.js'
import { isModuleFailureName } from '../executor/index.js'
import type { CoordMetrics } from './metrics.js'
import type { RecordSigner, RecordVerifier } from './signing.js'
import type * as Y from 'yjs'

/** A verified failure record. */
export interface Failure {
  signer: string
  /** MicroJob key `m.i`. */
  micro: string
  term: number
  attempts: number
  reason: string
  /** The error's message as its signer wrote it (one line, at most {@link MAX_FAILURE_DETAIL_CHARS}); may be empty. */
  detail: string
}

export interface JobFailuresComponents {
  signer?: RecordSigner
  verifier: RecordVerifier
  metrics?: CoordMetrics
}

export interface JobFailuresInit {
  /** Failed attempts (all MicroJobs, all peers) after which the job is given up. Default {@link DEFAULT_MAX_FAILURES}. */
  maxFailures?: number
  /** Distinct peers that must have failed before the job is given up. Default {@link DEFAULT_FAILURE_PEERS}. */
  failurePeers?: number
  /**
   * MicroJobs in each MacroJob of the job (0 past the last): a record naming a MicroJob the job does not have is not
   * counted. Default: every `m.i` key counts.
   */
  sizeOf?(macroIndex: number): number
}

export interface JobFailuresEvents {
  /** The job reached the failure bound: peers give it up. */
  failed: { attempts: number, peers: number, reasons: string[] }
}

/** A summary of a job's failures as the CRDT shows them. */
export interface FailureSummary {
  attempts: number
  peers: number
  /** Distinct executor error names. */
  reasons: string[]
  /**
   * Distinct `name: message` of the failures (at most {@link MAX_FAILURE_DETAILS}, sorted): why the runs failed, for
   * people (`RuntimeError: unreachable`); each signer's own word, never branched on.
   */
  details: string[]
  failed: boolean
}

/**
 * A failure record's detail as one line (a line break in an error message the CLI prints would forge a line of its
 * own), cut to {@link MAX_FAILURE_DETAIL_CHARS}. Its other controls are network text like the names beside it: the
 * CLIs escape them as they print (`terminalSafe`, docs/observability.md, Network text in a terminal).
 */
function oneLine (text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, MAX_FAILURE_DETAIL_CHARS)
}

/**
 * Whether a job's failed state is beyond doubt for a reader that cannot run the code (the SDK, the dashboard): every
 * failure is the module's own (a trap, invalid code, a limit: the same on every machine), or no MicroJob has a result
 * (`done`). A time limit depends on the machine and its load: peers whose runs ran out of time give the job up while
 * faster or less loaded ones check it with a run of their own and may work on to the end (processor/poison.ts).
 */
export function failedForCertain (summary: Pick<FailureSummary, 'failed' | 'reasons'>, done: number): boolean {
  return summary.failed && (done === 0 || summary.reasons.every(isModuleFailureName))
}

/**
 * The failed attempts of a job's MicroJobs (map `failures`, one signed record per MicroJob and peer, in the peer's
 * own slot like results). A MicroJob that fails on every attempt counts against its job: once the job has
 * `maxFailures` failed attempts from at least `failurePeers` peers it is failed (a state every reader computes the
 * same way from the CRDT; the SDK's progress reports it; a record counts for at most
 * {@link DEFAULT_LOCAL_MAX_FAILURES} attempts, after which its signer gave the job up, whatever it claims), and
 * processors check it with a run of their own (processor/poison.ts).
 */
export class JobFailures extends TypedEvents<JobFailuresEvents> {
  private readonly map: Y.Map<Uint8Array>
  private readonly scope: string
  private readonly components: JobFailuresComponents
  private readonly maxFailures: number
  private readonly failurePeers: number
  private readonly sizeOf?: (macroIndex: number) => number
  private readonly valid = new Map<string, Failure>()
  private readonly observer: (event: Y.YMapEvent<Uint8Array>) => void
  private stopped = false
  private reported = false

  constructor (components: JobFailuresComponents, map: Y.Map<Uint8Array>, jobId: string, init: JobFailuresInit = {}) {
    super()
    this.components = components
    this.map = map
    this.scope = failureScope(jobId)
    this.maxFailures = init.maxFailures ?? DEFAULT_MAX_FAILURES
    this.failurePeers = init.failurePeers ?? DEFAULT_FAILURE_PEERS
    this.sizeOf = init.sizeOf
    for (const key of map.keys()) this.check(key)
    this.observer = (event) => {
      for (const key of event.keysChanged) this.check(key)
      this.report()
    }
    map.observe(this.observer)
  }

  get failed (): boolean {
    return this.summary().failed
  }

  summary (): FailureSummary {
    let attempts = 0
    const peers = new Set<string>()
    const reasons = new Set<string>()
    const details = new Set<string>()
    for (const f of this.valid.values()) {
      attempts += f.attempts
      peers.add(f.signer)
      reasons.add(f.reason)
      details.add(f.detail === '' ? f.reason : `${f.reason}: ${f.detail}`)
    }
    return {
      attempts,
      peers: peers.size,
      reasons: [...reasons].sort(),
      details: [...details].sort().slice(0, MAX_FAILURE_DETAILS),
      failed: attempts >= this.maxFailures && peers.size >= this.failurePeers
    }
  }

  /** The MicroJobs (`m.i` keys) the valid failure records name, most recorded attempts first. */
  failingMicroJobs (): string[] {
    const attempts = new Map<string, number>()
    for (const f of this.valid.values()) attempts.set(f.micro, (attempts.get(f.micro) ?? 0) + f.attempts)
    return [...attempts].sort((a, b) => b[1] - a[1]).map(([micro]) => micro)
  }

  /**
   * The failed attempts this peer's own records hold (the signer's), over all MicroJobs, and their reasons: what it
   * recorded before this tracker was made, in an earlier run of the process too. None without a signer.
   */
  own (): { attempts: number, reasons: string[] } {
    const self = this.components.signer?.peerId
    let attempts = 0
    const reasons = new Set<string>()
    for (const f of this.valid.values()) {
      if (f.signer !== self) continue
      attempts += f.attempts
      reasons.add(f.reason)
    }
    return { attempts, reasons: [...reasons].sort() }
  }

  /** This peer's failed attempts at a MicroJob so far. */
  attemptsOf (macroIndex: number, index: number, peerId: string): number {
    return this.valid.get(resultKey(macroIndex, index, peerId))?.attempts ?? 0
  }

  /**
   * Records a failed attempt of this peer (attempts = its previous attempts at this MicroJob + 1): `reason` the error's
   * name, `detail` its message (cut short).
   *
   * @throws TypeError without a signer
   */
  record (macroIndex: number, index: number, term: number, reason: string, detail = ''): void {
    const signer = this.components.signer
    if (signer == null) throw new TypeError('a read-only failure tracker cannot record')
    const micro = microKey(macroIndex, index)
    const attempts = this.attemptsOf(macroIndex, index, signer.peerId) + 1
    const payload = FailureRecord.encode({ term, attempts, reason: reason.slice(0, 64), detail: oneLine(detail) })
    this.map.set(resultKey(macroIndex, index, signer.peerId), signer.sign(`${this.scope}/${micro}`, payload))
  }

  /** Stops following the map; idempotent (a job context is closed on stop and on job end, which may both happen). */
  stop (): void {
    if (this.stopped) return
    this.stopped = true
    this.map.unobserve(this.observer)
  }

  private report (): void {
    if (this.reported) return
    const s = this.summary()
    if (!s.failed) return
    this.reported = true
    this.safeDispatch('failed', { attempts: s.attempts, peers: s.peers, reasons: s.reasons })
  }

  /** Whether `micro` is a MicroJob key `m.i` of the job (any `m.i` without `sizeOf`). */
  private isMicroJob (micro: string): boolean {
    const parts = micro.split('.')
    if (parts.length !== 2 || !parts.every(p => keyIndex(p) != null)) return false
    const [m, i] = parts.map(Number)
    return this.sizeOf == null || i < this.sizeOf(m)
  }

  private check (key: string): void {
    this.valid.delete(key)
    const parsed = parseResultKey(key)
    const value = this.map.get(key)
    if (parsed == null || !(value instanceof Uint8Array) || !this.isMicroJob(parsed.micro)) return
    const record = this.components.verifier.verify(value, `${this.scope}/${parsed.micro}`)
    if (record == null || resultSlot(record.signer) !== parsed.slot) {
      if (this.components.metrics != null) this.components.metrics.invalidRecords++
      return
    }
    try {
      const f = FailureRecord.decode(record.payload)
      this.valid.set(key, { signer: record.signer, micro: parsed.micro, term: f.term, attempts: Math.min(DEFAULT_LOCAL_MAX_FAILURES, Math.max(1, f.attempts)), reason: f.reason, detail: oneLine(f.detail) })
    } catch {
      if (this.components.metrics != null) this.components.metrics.invalidRecords++
    }
  }
}
