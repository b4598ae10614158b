// What a coordination bench run observed, as the issue's fields (bench/coordination.bench.js): one run's row, a
// row's median and worst, the per-run line and the table it prints, and the timeline file.
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))

function percentile (sorted, p) {
  if (sorted.length === 0) return NaN
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]
}

const round3 = (x) => Number(x.toFixed(3))

/**
 * What a run's peers report as it goes: each MicroJob start and done by peer, with its time (and, for the timeline,
 * queue ownership). Both kinds of row feed one, and `fields` reads it.
 */
export class RunTally {
  constructor () {
    this.reset()
  }

  /** Forgets everything (a warm-up job's events are not the measured job's). */
  reset () {
    this.runs = new Map()
    this.claimToStart = []
    this.firstStart = Infinity
    this.peerStarts = new Map()
    this.lastDone = 0
    this.timeline = []
  }

  start (peer, key, at, claimToStartMs) {
    this.firstStart = Math.min(this.firstStart, at)
    if (!this.peerStarts.has(peer)) this.peerStarts.set(peer, at)
    this.claimToStart.push(claimToStartMs)
    this.timeline.push({ peer, type: 'start', key, at, claimToStartMs })
  }

  done (peer, key, at) {
    this.lastDone = Math.max(this.lastDone, at)
    this.runs.set(key, (this.runs.get(key) ?? 0) + 1)
    this.timeline.push({ peer, type: 'done', key, at })
  }

  ownership (peer, detail) {
    this.timeline.push({ peer, type: 'ownership', ...detail })
  }

  /** A peer process used `ms` of CPU in the interval that ended `at` (multi-process rows, COORD_BENCH_TIMELINE). */
  cpu (peer, at, ms) {
    this.timeline.push({ peer, type: 'cpu', at, ms })
  }
}

/**
 * The CPU of all peers in each `sliceMs` from the announcement to the last MicroJob done (ms of CPU per slice, from the
 * timeline's `cpu` events; a sample counts in the slice its interval ended in). Shows where in a job the CPU goes:
 * the start, the turns' ends, the steady state between them.
 */
export function cpuSlices (tally, announced, sliceMs = 500) {
  const slices = Array.from({ length: Math.max(1, Math.ceil((tally.lastDone - announced) / sliceMs)) }, () => 0)
  for (const e of tally.timeline) {
    if (e.type !== 'cpu') continue
    const i = Math.floor((e.at - announced) / sliceMs)
    if (i >= 0 && i < slices.length) slices[i] += e.ms
  }
  return slices.map(ms => Math.round(ms))
}

/** All peers' CPU (ms) after the job's last MicroJob: its end (completion on every peer) and the report. */
export function cpuAfterLastDone (tally) {
  return Math.round(tally.timeline.filter(e => e.type === 'cpu' && e.at > tally.lastDone).reduce((a, e) => a + e.ms, 0))
}

/**
 * Where the peers' time went (rows with work, whose MicroJobs a peer runs one at a time), averaged over the peers that
 * ran any: from the announcement to a peer's first MicroJob (`firstMs`), the gaps between its MicroJobs beyond their
 * work (`gapMs`: timers firing late on busy cores, turns that came late), and from its last MicroJob's end to the
 * job's (`tailMs`). For every peer, first + its MicroJobs' work + gaps + tail is about the makespan.
 */
export function peerTime (timeline, announced, lastDone, workMs) {
  const starts = new Map()
  const ends = new Map()
  for (const e of timeline) {
    if (e.type === 'start') {
      const at = starts.get(e.peer)
      if (at == null) starts.set(e.peer, [e.at])
      else at.push(e.at)
    } else if (e.type === 'done') ends.set(e.peer, Math.max(ends.get(e.peer) ?? 0, e.at))
  }
  if (workMs <= 0 || starts.size === 0) return { firstMs: null, gapMs: null, tailMs: null }
  let first = 0
  let gaps = 0
  let tail = 0
  for (const [peer, at] of starts) {
    at.sort((a, b) => a - b)
    first += at[0] - announced
    for (let i = 1; i < at.length; i++) gaps += Math.max(0, at[i] - at[i - 1] - workMs)
    tail += lastDone - (ends.get(peer) ?? lastDone)
  }
  const mean = (ms) => Math.round(ms / starts.size)
  return { firstMs: mean(first), gapMs: mean(gaps), tailMs: mean(tail) }
}

/** The issue's fields from what a run observed (`tally`: a {@link RunTally}). */
export function fields ({ peers, processes, microJobs, workMs, announced, tally, quietMs, notQuiet, failovers, handoffs, cpuMs, counters, syncs, rpcs, steady }) {
  const { firstStart, peerStarts, lastDone, runs, claimToStart } = tally
  const executions = [...runs.values()].reduce((a, b) => a + b, 0)
  const sum = (f) => counters.reduce((a, c) => a + f(c), 0)
  const kinds = {}
  for (const c of counters) {
    for (const [kind, k] of Object.entries(c.kinds)) {
      const t = kinds[kind] ?? (kinds[kind] = { sent: 0, received: 0, bytesSent: 0 })
      t.sent += k.sent
      t.received += k.received
      t.bytesSent += k.bytesSent
    }
  }
  const makespanMs = Math.round(lastDone - announced)
  const idealMs = workMs > 0 ? microJobs * workMs / peers : null
  claimToStart.sort((a, b) => a - b)
  const time = peerTime(tally.timeline, announced, lastDone, workMs)
  return {
    peers,
    processes,
    microJobs,
    workMs,
    makespanMs,
    idealMs,
    ratio: idealMs == null ? null : round3(makespanMs / idealMs),
    perSecond: Math.round(microJobs / ((lastDone - firstStart) / 1000)),
    duplicates: executions - runs.size,
    failovers,
    handoffs,
    cpuMsPerMicroJob: round3(cpuMs / microJobs),
    // multi-process rows: the CPU per MicroJob from the moment every peer has started to 90 % done (no start, no
    // tail), and the rate in that part against the peers' ideal (peers x 1 000 / workMs per second)
    ...(steady == null ? {} : {
      steadyCpuMsPerMicroJob: round3(steady.cpuMs / steady.microJobs),
      steadyEfficiency: round3((steady.microJobs / (steady.ms / 1000)) / (peers * 1000 / workMs))
    }),
    messagesPerMicroJob: round3(sum(c => c.messagesSent) / microJobs),
    deliveriesPerMicroJob: round3(sum(c => c.messagesReceived) / microJobs),
    signatureVerificationsPerMicroJob: round3(sum(c => c.messageVerifications + c.recordVerifications) / microJobs),
    messageVerificationsPerMicroJob: round3(sum(c => c.messageVerifications) / microJobs),
    recordVerificationsPerMicroJob: round3(sum(c => c.recordVerifications) / microJobs),
    recordSignaturesPerMicroJob: round3(sum(c => c.recordSignatures) / microJobs),
    bytesPerMicroJob: Math.round(sum(c => c.bytesSent) / microJobs),
    // sync exchanges (catch-ups, confirms, subscription exchanges) the peers started, and the diff bytes they got
    // (multi-process rows)
    syncsPerMicroJob: syncs == null ? null : round3(syncs.reduce((a, s) => a + s.completed, 0) / microJobs),
    syncBytesPerMicroJob: syncs == null ? null : Math.round(syncs.reduce((a, s) => a + s.bytesIn, 0) / microJobs),
    // gossipsub RPCs the peers received (multi-process rows; gossip-rpcs.js): all, those with no message (control
    // only), and the subscription changes and IHAVE entries among them
    ...(rpcs == null ? {} : rpcFields(rpcs, microJobs)),
    startupMs: Math.round(firstStart - announced),
    // the announcement to the first MicroJob of the peer that started last
    lastPeerStartMs: peerStarts.size < peers ? null : Math.round(Math.max(...peerStarts.values()) - announced),
    // per peer on average: to its first MicroJob, between its MicroJobs beyond their work, idle at the end (peerTime)
    peerFirstMs: time.firstMs,
    peerGapMs: time.gapMs,
    peerTailMs: time.tailMs,
    // multi-process rows: how long the peers took to be quiet after the mesh formed, and how many never were
    ...(processes ? { quietMs: Math.round(quietMs), notQuiet } : {}),
    claimToStartP50: percentile(claimToStart, 0.5),
    claimToStartP99: percentile(claimToStart, 0.99),
    kinds
  }
}

/** The gossipsub RPC counts of every peer process, summed, per MicroJob and in all. */
function rpcFields (rpcs, microJobs) {
  const total = {}
  for (const r of rpcs) for (const [k, v] of Object.entries(r)) total[k] = (total[k] ?? 0) + v
  return {
    gossipRpcsPerMicroJob: round3(total.rpcs / microJobs),
    controlRpcsPerMicroJob: round3(total.control / microJobs),
    subscriptionsPerMicroJob: round3(total.subscriptions / microJobs),
    ihavesPerMicroJob: round3(total.ihave / microJobs),
    gossipRpcs: total
  }
}

/** Per peer: what it ran and when; per room (multi-process rows): who owned the queue when. Times from the announcement. */
export function writeTimeline (name, { events, announced, ...rest }) {
  mkdirSync(join(here, 'out'), { recursive: true })
  writeFileSync(join(here, 'out', name), JSON.stringify({
    ...rest, announced, events: events.map(e => ({ ...e, at: Math.round(e.at - announced) }))
  }) + '\n')
}

// which way is worse for each field (everything else: higher is worse)
const LOWER_IS_WORSE = new Set(['perSecond'])

/** A row's median and worst run, field by field. */
export function summarize (results) {
  const median = {}
  const worst = {}
  for (const [key, value] of Object.entries(results[0])) {
    if (typeof value !== 'number') {
      median[key] = value
      worst[key] = value
      continue
    }
    const values = results.map(r => r[key]).filter(v => typeof v === 'number').sort((a, b) => a - b)
    median[key] = values[Math.floor((values.length - 1) / 2)]
    worst[key] = LOWER_IS_WORSE.has(key) ? values[0] : values[values.length - 1]
  }
  return { median, worst }
}

/** The line printed after each run of row `name`. */
export function runLine (name, r) {
  const line = name.startsWith('failover')
    ? `kill -> next start ${r.killToNextStartMs} ms (target ${r.targetMs}), kill -> new owner ${r.killToFailoverOwnershipMs} ms, lost ${r.lost}`
    : `makespan ${r.makespanMs} ms${r.idealMs == null ? '' : ` (ideal ${r.idealMs}, ratio ${r.ratio})`}, ${r.perSecond} MicroJobs/s, ` +
      `cpu ${r.cpuMsPerMicroJob} ms, messages ${r.messagesPerMicroJob}, deliveries ${r.deliveriesPerMicroJob}, ` +
      `signature checks ${r.signatureVerificationsPerMicroJob} per MicroJob` +
      (r.syncsPerMicroJob == null ? '' : `, sync exchanges ${r.syncsPerMicroJob} (${r.syncBytesPerMicroJob} B) per MicroJob`) +
      (r.gossipRpcsPerMicroJob == null ? '' : `, gossip RPCs received ${r.gossipRpcsPerMicroJob} (${r.controlRpcsPerMicroJob} control only) per MicroJob`) +
      (r.steadyCpuMsPerMicroJob == null ? '' : `, steady part ${r.steadyCpuMsPerMicroJob} ms of CPU per MicroJob at ${r.steadyEfficiency} of the ideal rate`) +
      `, start ${r.startupMs} / ${r.lastPeerStartMs} ms (first / last peer)` +
      (r.peerFirstMs == null ? '' : `, per peer ${r.peerFirstMs} ms to start, ${r.peerGapMs} ms of gaps, ${r.peerTailMs} ms idle at the end`) +
      (r.quietMs == null ? '' : `, quiet after ${r.quietMs} ms${r.notQuiet > 0 ? ` (${r.notQuiet} peers never)` : ''}`)
  return `${line}, duplicates ${r.duplicates}, failovers ${r.failovers}`
}

const COLUMNS = ['peers', 'processes', 'microJobs', 'workMs', 'makespanMs', 'idealMs', 'ratio', 'perSecond', 'duplicates',
  'failovers', 'cpuMsPerMicroJob', 'messagesPerMicroJob', 'signatureVerificationsPerMicroJob']

/** The table of every row's median and worst run. */
export function formatTable (rows) {
  const table = [['row', 'of', ...COLUMNS]]
  for (const r of rows) {
    if (r.median == null) {
      table.push([r.name, 'failed', r.errors.join('; ')])
      continue
    }
    if (r.name.startsWith('failover')) {
      for (const which of ['median', 'worst']) {
        const s = r[which]
        table.push([r.name, which, s.peers, s.processes, s.microJobs, s.workMs, `kill->next start ${s.killToNextStartMs}`, s.targetMs, '', '', s.duplicates, s.failovers, `lost ${s.lost}`, '', ''])
      }
      continue
    }
    for (const which of ['median', 'worst']) table.push([r.name, which, ...COLUMNS.map(c => r[which][c] ?? '')])
  }
  const widths = table[0].map((_, c) => Math.max(...table.map(r => String(r[c] ?? '').length)))
  return table.map(r => r.map((v, c) => String(v).padEnd(widths[c])).join(' | ')).join('\n')
}
