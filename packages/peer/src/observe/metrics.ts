import { Counter, Gauge } from 'prom-client'
import type { CoordMetrics } from '../coord/index.js'
import type { DocStoreMetrics } from '../crdt/index.js'
import type { Processor } from '../processor/index.js'
import type { Settlement, SettlementEvents } from '../settlement/index.js'
import type { Registry } from 'prom-client'

/** Where the jobmesh counters read from; every part is optional (a peer without a chain has no settlement). */
export interface MetricsSources {
  processor?: Pick<Processor, 'addEventListener' | 'removeEventListener'> & { metrics: CoordMetrics }
  settlement?: Pick<Settlement, 'addEventListener' | 'removeEventListener'>
  docs?: { metrics: DocStoreMetrics, names(): string[] }
  /** Per known job: MicroJobs with a valid result in the CRDT, and the job's MicroJob count. */
  jobs?: () => Array<{ jobId: string, done: number, total: number }>
}

/** The jobmesh metric names (all prefixed `jobmesh_`), for docs and tests. */
export const METRIC_NAMES = {
  microJobsDone: 'jobmesh_microjobs_done_total',
  microJobsFailed: 'jobmesh_microjobs_failed_total',
  jobMicroJobsDone: 'jobmesh_job_microjobs_done',
  jobMicroJobs: 'jobmesh_job_microjobs',
  handoffs: 'jobmesh_queue_handoffs_total',
  failovers: 'jobmesh_queue_failovers_total',
  dropped: 'jobmesh_dropped_messages_total',
  crdtBytes: 'jobmesh_crdt_sync_bytes_total',
  crdtUpdates: 'jobmesh_crdt_updates_total',
  crdtDocs: 'jobmesh_crdt_docs_open',
  finalizations: 'jobmesh_finalizations_total',
  verifications: 'jobmesh_verifications_total',
  settlements: 'jobmesh_settlements_total',
  claimsWei: 'jobmesh_claims_wei_total',
  chainErrors: 'jobmesh_chain_errors_total',
  jobsGivenUp: 'jobmesh_jobs_given_up_total',
  turnsUnanswered: 'jobmesh_queue_turns_unanswered_total',
  holdsReleased: 'jobmesh_queue_holds_released_total'
} as const

/** A counter that mirrors a monotonic number kept elsewhere (read when Prometheus scrapes). */
function mirror (registry: Registry, name: string, help: string, labelNames: string[], read: () => Array<[Record<string, string>, number]>): void {
  const last = new Map<string, number>()
  new Counter({
    name,
    help,
    labelNames,
    registers: [registry],
    collect () {
      for (const [labels, value] of read()) {
        const key = JSON.stringify(labels)
        const delta = value - (last.get(key) ?? 0)
        this.inc(labels, Math.max(0, delta))
        last.set(key, Math.max(value, last.get(key) ?? 0))
      }
    }
  })
}

/**
 * Registers the jobmesh counters and gauges on `registry` and listens to the processor's and the settlement's
 * events. Returns a function that removes the listeners.
 */
export function registerPeerMetrics (registry: Registry, sources: MetricsSources): () => void {
  const detach: Array<() => void> = []
  const { processor, settlement, docs } = sources
  const done = new Counter({ name: METRIC_NAMES.microJobsDone, help: 'MicroJobs this peer executed and recorded', registers: [registry] })
  const failed = new Counter({ name: METRIC_NAMES.microJobsFailed, help: 'MicroJobs whose execution failed on this peer', registers: [registry] })
  const finalizations = new Counter({ name: METRIC_NAMES.finalizations, help: 'Jobs this peer finalized (results submitted on chain)', registers: [registry] })
  const verifications = new Counter({ name: METRIC_NAMES.verifications, help: 'Verifications this peer ran as a drawn verifier', labelNames: ['revealed'], registers: [registry] })
  const settlements = new Counter({ name: METRIC_NAMES.settlements, help: 'Settlements this peer saw through', labelNames: ['outcome'], registers: [registry] })
  const claims = new Counter({ name: METRIC_NAMES.claimsWei, help: 'Payouts and credits this peer claimed, in wei', registers: [registry] })
  const chainErrors = new Counter({ name: METRIC_NAMES.chainErrors, help: 'Failed settlement steps (chain calls, transactions), by step', labelNames: ['step'], registers: [registry] })
  if (processor != null) {
    const givenUp = new Counter({ name: METRIC_NAMES.jobsGivenUp, help: 'Jobs this peer gave up because their MicroJobs fail everywhere (poison isolation)', registers: [registry] })
    const onDone = (): void => { done.inc() }
    const onFailed = (): void => { failed.inc() }
    const unanswered = new Counter({ name: METRIC_NAMES.turnsUnanswered, help: 'Queue turns this peer waited on for 30 s without an answer (it left the room)', registers: [registry] })
    const onGivenUp = (): void => { givenUp.inc() }
    const onUnanswered = (): void => { unanswered.inc() }
    processor.addEventListener('microjob:done', onDone)
    processor.addEventListener('microjob:error', onFailed)
    processor.addEventListener('job:failed', onGivenUp)
    processor.addEventListener('turn:unanswered', onUnanswered)
    detach.push(() => {
      processor.removeEventListener('microjob:done', onDone)
      processor.removeEventListener('microjob:error', onFailed)
      processor.removeEventListener('job:failed', onGivenUp)
      processor.removeEventListener('turn:unanswered', onUnanswered)
    })
    const m = processor.metrics
    mirror(registry, METRIC_NAMES.handoffs, 'MicroJob queue handoffs between owners', [], () => [[{}, m.handoffs]])
    mirror(registry, METRIC_NAMES.failovers, 'Queue failovers (an owner went silent and another took over)', [], () => [[{}, m.failovers]])
    mirror(registry, METRIC_NAMES.holdsReleased, 'MicroJobs re-opened as owner because another peer held them past the hold bound without a result', [], () => [[{}, m.holdsReleased]])
    mirror(registry, METRIC_NAMES.dropped, 'Coordination messages and records dropped, by reason', ['reason'], () => [
      [{ reason: 'forged' }, m.droppedForged],
      [{ reason: 'stale' }, m.droppedStale],
      [{ reason: 'malformed' }, m.droppedMalformed],
      [{ reason: 'oversized' }, m.droppedOversized],
      [{ reason: 'invalid_record' }, m.invalidRecords],
      [{ reason: 'unadmitted' }, m.droppedUnadmitted],
      [{ reason: 'replayed' }, m.droppedReplayed + (docs?.metrics.gossipReplayed ?? 0)],
      [{ reason: 'crdt_rejected' }, docs?.metrics.updatesRejected ?? 0]
    ])
  }
  if (docs != null) {
    const d = docs.metrics
    mirror(registry, METRIC_NAMES.crdtBytes, 'CRDT diff bytes exchanged over sync streams', ['direction'], () => [
      [{ direction: 'in' }, d.syncBytesIn], [{ direction: 'out' }, d.syncBytesOut]
    ])
    mirror(registry, METRIC_NAMES.crdtUpdates, 'CRDT updates, by kind', ['kind'], () => [
      [{ kind: 'applied' }, d.updatesApplied], [{ kind: 'published' }, d.updatesPublished],
      [{ kind: 'oversized' }, d.updatesOversized], [{ kind: 'persisted' }, d.updatesPersisted]
    ])
    new Gauge({ name: METRIC_NAMES.crdtDocs, help: 'CRDT docs open on this peer', registers: [registry], collect () { this.set(docs.names().length) } })
  }
  if (sources.jobs != null) {
    const jobs = sources.jobs
    new Gauge({
      name: METRIC_NAMES.jobMicroJobsDone,
      help: 'MicroJobs of a job with a valid result in the CRDT (all peers)',
      labelNames: ['job'],
      registers: [registry],
      collect () { this.reset(); for (const j of jobs()) this.set({ job: j.jobId }, j.done) }
    })
    new Gauge({
      name: METRIC_NAMES.jobMicroJobs,
      help: 'MicroJobs of a job',
      labelNames: ['job'],
      registers: [registry],
      collect () { this.reset(); for (const j of jobs()) this.set({ job: j.jobId }, j.total) }
    })
  }
  if (settlement != null) {
    const on = <K extends keyof SettlementEvents & string>(type: K, fn: (d: SettlementEvents[K]) => void): void => {
      const listener = (evt: Event): void => { fn((evt as CustomEvent<SettlementEvents[K]>).detail) }
      settlement.addEventListener(type, listener)
      detach.push(() => { settlement.removeEventListener(type, listener) })
    }
    on('finalized', d => { if (d.outcome === 'submitted') finalizations.inc() })
    on('verified', d => { verifications.inc({ revealed: String(d.revealed) }) })
    on('settled', d => { settlements.inc({ outcome: d.released ? 'released' : d.rejected ? 'rejected' : 'restarted' }) })
    on('claimed', d => { claims.inc(Number(d.claimed + d.withdrawn)) })
    on('error', d => { chainErrors.inc({ step: d.step.split(' ')[0] }) })
  }
  return () => { for (const d of detach) d() }
}
