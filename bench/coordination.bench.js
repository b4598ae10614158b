#!/usr/bin/env node
// Coordination bench (DESIGN 11 and issue #10: >= 1 000 no-op MicroJobs/s across 8 peers, claim-to-start p50 < 5 ms,
// makespan <= 1.15 x ideal at 8 peers and <= 1.3 at 16, cpuMsPerMicroJob <= 1 at 8 peers, failover <= ownerTimeout +
// 1 s). Real libp2p nodes on loopback TCP, real Yjs docs, the real processor loop with production defaults (leases,
// heartbeat, settle window, batch sizes); only the executor is a stand-in (no-op, or a 50 ms timer standing for
// remote compute).
//
//   npm run build && node bench/coordination.bench.js
//   COORD_BENCH_ONLY=proc:8,proc:16 COORD_BENCH_RUNS=3 node bench/coordination.bench.js   (a subset, fewer runs)
//   COORD_BENCH_GUARD=0 ...   (doc stores without the CRDT ownership guard, as the bench built them before)
//   COORD_BENCH_COLD=1 ...    (multi-process rows: announce as soon as the mesh formed, not once every peer process is
//                              quiet, < 12 ms of CPU in its last second; how long that took is `quietMs`)
//   COORD_BENCH_WARMUP=1 ...  (multi-process rows: the peers run a first job of the same size, not measured)
//   COORD_BENCH_IDEAL_MS=12000 ... (multi-process rows: MicroJobs for this ideal makespan instead of 4 000 ms; a longer
//                              job spreads the start's fixed cost over more MicroJobs)
//   COORD_BENCH_GOSSIP='{"D":2}' ... (multi-process rows: gossipsub parameters over the node's defaults)
//   COORD_BENCH_TIMELINE=1 ... (writes bench/out/coordination-timeline-*.json: each MicroJob's start and done, queue
//                              ownership and, in the multi-process rows, each peer's CPU every 250 ms, whose sum per
//                              500 ms from the announcement is printed after the run)
//
// Rows (each run COORD_BENCH_RUNS times, default 5; the table shows the median and the worst run):
// - no-op:2/4/8   in one process, a job of no-op MicroJobs; perSecond = MicroJobs / (last done - first start).
// - 50ms:4/8      in one process, 50 ms (timer) MicroJobs; makespan = announce -> last done; ideal = work / peers.
// - proc:4/8/16   each peer its own OS process (bench/coordination-peer.js: createNode + createDocStore +
//                 createProcessor, as `jobmesh start`), 50 ms MicroJobs, 80 per peer (ideal makespan 4 s). Also
//                 steadyCpuMsPerMicroJob and steadyEfficiency: the CPU per MicroJob and the rate against the ideal
//                 from the moment every peer has started to 90 % done, without the start and the tail.
// - failover:4    in one process; 4 peers, one MacroJob of 50 ms MicroJobs; once a quarter is done, the peer that just
//                 received the queue is stopped abruptly (`processor.stop({ abrupt: true })` + libp2p stop: no
//                 snapshot, no handoff, like kill -9). kill -> first MicroJob of that MacroJob locked after the kill
//                 and started by another peer (target ownerTimeout 3 s + 1 s), MicroJobs lost (must be 0).
// Per row: peers, processes, microJobs, workMs, makespanMs, idealMs, ratio, perSecond, duplicates (MicroJobs run more
// than once), failovers, cpuMsPerMicroJob (user + system CPU of all peers / MicroJobs; in one process: the whole
// process), messagesPerMicroJob (gossip messages published by all peers / MicroJobs), deliveriesPerMicroJob (gossip
// messages received by all peers / MicroJobs), signatureVerificationsPerMicroJob (gossipsub StrictSign checks of
// received messages + record signature checks, all peers / MicroJobs), bytesPerMicroJob (gossip bytes published),
// and per message kind, startupMs / lastPeerStartMs (announce -> the first MicroJob of the first / the last peer),
// peerFirstMs / peerGapMs / peerTailMs (per peer on average: announce -> its first MicroJob, the gaps between its
// MicroJobs beyond their work, idle after its last; rows with work). Counters come from the code paths (`createTrafficCounters`, given to the doc store and the
// processor). Writes bench/out/coordination.json.
import '@jobmesh/peer/polyfill'
import { fork } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { testJob, waitFor } from '@jobmesh/testkit'
import { stopChildren } from './child-processes.js'
import { TIMEOUT_MS, dialPlan, now, runFailover, runInProcess } from './coordination-inprocess.js'
import { RunTally, cpuAfterLastDone, cpuSlices, fields, formatTable, runLine, summarize, writeTimeline } from './coordination-report.js'

const here = dirname(fileURLToPath(import.meta.url))
// stopping many nodes at once can leave a dial in flight that fails after its caller gave up: not a bench failure
process.on('uncaughtException', (err) => {
  if (err?.code === 'ECONNRESET' || err?.code === 'ECONNREFUSED' || err?.code === 'EPIPE') return
  throw err
})
const warnings = []
process.on('warning', (w) => { warnings.push(`${w.name}: ${w.message}`) })
/** A peer process is quiet when it used less than this much CPU in the last second (ms; multi-process rows). */
const QUIET_MS_PER_SECOND = 12
/** How long the bench waits for every peer process to be quiet before it announces the job anyway (ms). */
const QUIET_TIMEOUT_MS = 30_000
const RUNS = Number(process.env.COORD_BENCH_RUNS ?? '5')
/** The steady part of a multi-process job ends when this share of its MicroJobs is done. */
const STEADY_END = 0.9
/** The timeline's CPU slices (ms; COORD_BENCH_TIMELINE). */
const CPU_SLICE_MS = 500

function startChild (workMs, onEvent) {
  // COORD_BENCH_CPU_PROF=<dir>: every peer process writes a V8 CPU profile there (node --cpu-prof)
  const prof = process.env.COORD_BENCH_CPU_PROF
  const child = fork(join(here, 'coordination-peer.js'), [], {
    env: { ...process.env, COORD_PEER_WORK_MS: String(workMs) },
    execArgv: prof == null ? [] : ['--cpu-prof', '--cpu-prof-dir', prof],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc']
  })
  const waiters = new Map()
  const exited = new Promise(resolve => { child.once('exit', resolve) })
  child.on('message', (msg) => {
    if (msg.type === 'error') {
      process.stderr.write(`peer process ${child.pid}: ${msg.message}\n`)
    } else if (msg.type === 'warning') {
      warnings.push(`peer process ${child.pid}: ${msg.message}`)
    }
    const w = waiters.get(msg.type)
    if (w != null) {
      waiters.delete(msg.type)
      w.resolve(msg)
    }
    onEvent(msg)
  })
  const next = (type, timeoutMs = 60_000) => {
    const { promise, resolve, reject } = Promise.withResolvers()
    const timer = setTimeout(() => { reject(new Error(`peer process ${child.pid}: no ${type} within ${timeoutMs} ms`)) }, timeoutMs)
    waiters.set(type, { resolve: (m) => { clearTimeout(timer); resolve(m) } })
    return promise
  }
  return { child, next, exited }
}

/** Runs one job on `n` peers, each its own OS process. */
async function runProcesses ({ peers: n, macroJobs, microJobsPerMacro, workMs }) {
  const total = macroJobs * microJobsPerMacro
  const tally = new RunTally()
  let completes = 0
  let quietMs = 0
  let notQuiet = 0
  // the job's steady part: from the moment every peer has started to the moment STEADY_END of the MicroJobs are done,
  // each peer's CPU read at both marks (the start's fixed cost and the tail left out)
  const steady = { marks: [], cpu: [0, 0] }
  const mark = () => {
    steady.marks.push({ at: now(), done: tally.runs.size })
    for (const c of children) c.child.send({ type: 'cpu-mark', mark: steady.marks.length - 1 })
  }
  const children = Array.from({ length: n }, (_, i) => startChild(workMs, (msg) => {
    if (msg.type === 'start') {
      tally.start(i, msg.key, msg.at, msg.claimToStartMs)
      if (steady.marks.length === 0 && tally.peerStarts.size === n) mark()
    } else if (msg.type === 'done') {
      tally.done(i, msg.key, msg.at)
      if (steady.marks.length === 1 && tally.runs.size >= STEADY_END * total) mark()
    } else if (msg.type === 'cpu-mark') steady.cpu[msg.mark] += msg.ms
    else if (msg.type === 'ownership') tally.ownership(i, { macroIndex: msg.macroIndex, epoch: msg.epoch, term: msg.term, at: msg.at })
    else if (msg.type === 'cpu') tally.cpu(i, msg.at, msg.ms)
    else if (msg.type === 'complete') completes++
  }))
  try {
    const ready = await Promise.all(children.map(c => c.next('ready', 240_000)))
    const plan = dialPlan(n)
    await Promise.all(children.map(async (c, i) => {
      const dialed = c.next('dialed')
      c.child.send({ type: 'dial', addrs: plan[i].map(j => `${ready[j].addr}`) })
      await dialed
    }))
    await Promise.all(children.map(async c => {
      const meshed = c.next('meshed', 120_000)
      c.child.send({ type: 'mesh', peers: n })
      await meshed
    }))
    // a freshly started process keeps compiling and collecting what its start loaded for seconds (17-27 ms of CPU
    // per peer per second right after the mesh formed, 8 after 15 s, 8 idle peers): startup, not coordination, so
    // the job is announced once every peer is quiet (COORD_BENCH_COLD=1: at once, as before)
    if (process.env.COORD_BENCH_COLD == null) {
      const quiet = await Promise.all(children.map(async c => {
        const r = c.next('quiet', QUIET_TIMEOUT_MS + 10_000)
        c.child.send({ type: 'quiet', msPerSecond: QUIET_MS_PER_SECOND, timeoutMs: QUIET_TIMEOUT_MS })
        return await r
      }))
      quietMs = Math.max(...quiet.map(q => q.waitedMs))
      notQuiet = quiet.filter(q => q.timedOut).length
    }
    if (process.env.COORD_BENCH_WARMUP != null) {
      const warm = testJob(macroJobs, microJobsPerMacro)
      children[0].child.send({ type: 'announce', job: { spec: warm.input, jobId: warm.jobId, specCid: warm.specCid } })
      await waitFor(() => completes === n, { timeoutMs: TIMEOUT_MS, what: 'warm-up job:complete on every peer' })
      await Promise.all(children.map(async c => { const r = c.next('rebased'); c.child.send({ type: 'rebase' }); await r }))
      // what the warm-up job left is not the measured job's
      completes = 0
      tally.reset()
      steady.marks = []
      steady.cpu = [0, 0]
    }
    const job = testJob(macroJobs, microJobsPerMacro)
    const announced = now()
    children[0].child.send({ type: 'announce', job: { spec: job.input, jobId: job.jobId, specCid: job.specCid } })
    await waitFor(() => completes === n, { timeoutMs: TIMEOUT_MS, what: 'job:complete on every peer' })
    await waitFor(() => tally.runs.size === total, { timeoutMs: 10_000, what: 'every MicroJob done' })
    const steadyCpuMs = steady.marks.length === 2 ? steady.cpu[1] - steady.cpu[0] : null
    const reports = await Promise.all(children.map(async c => {
      const report = c.next('report')
      c.child.send({ type: 'report' })
      return await report
    }))
    if (process.env.COORD_BENCH_TIMELINE != null) {
      writeTimeline(`coordination-timeline-${n}.json`, { peers: n, peerIds: ready.map(r => r.peerId), workMs, announced, events: tally.timeline })
      process.stdout.write(`  CPU of all ${n} peers per ${CPU_SLICE_MS} ms from the announcement (ms; ${cpus().length} cores give ${cpus().length * CPU_SLICE_MS}): ${cpuSlices(tally, announced, CPU_SLICE_MS).join(' ')}; after the last MicroJob ${cpuAfterLastDone(tally)}\n`)
    }
    return fields({
      peers: n,
      processes: true,
      microJobs: total,
      workMs,
      announced,
      tally,
      quietMs,
      notQuiet,
      failovers: reports.reduce((a, r) => a + r.metrics.failovers, 0),
      handoffs: reports.reduce((a, r) => a + r.metrics.handoffs, 0),
      cpuMs: reports.reduce((a, r) => a + (r.cpu.user + r.cpu.system) / 1000, 0),
      counters: reports.map(r => r.counters),
      syncs: reports.map(r => r.syncs),
      rpcs: reports.map(r => r.rpcs),
      steady: steadyCpuMs == null ? undefined : { cpuMs: steadyCpuMs, microJobs: steady.marks[1].done - steady.marks[0].done, ms: steady.marks[1].at - steady.marks[0].at }
    })
  } finally {
    await stopChildren(children)
  }
}

// COORD_BENCH_ONLY=no-op:8,proc:16 runs a subset (default: every row)
const only = process.env.COORD_BENCH_ONLY?.split(',')
/** The multi-process rows' ideal makespan (ms): MicroJobs of 50 ms per peer = this / 50. */
const PROC_IDEAL_MS = Number(process.env.COORD_BENCH_IDEAL_MS ?? '4000')
const procPerMacro = 2 * PROC_IDEAL_MS / 50
const ROWS = [
  { name: 'no-op:2', run: () => runInProcess({ peers: 2, macroJobs: 1, microJobsPerMacro: 1_000, workMs: 0 }) },
  { name: 'no-op:4', run: () => runInProcess({ peers: 4, macroJobs: 2, microJobsPerMacro: 1_000, workMs: 0 }) },
  { name: 'no-op:8', run: () => runInProcess({ peers: 8, macroJobs: 4, microJobsPerMacro: 500, workMs: 0 }) },
  { name: '50ms:4', run: () => runInProcess({ peers: 4, macroJobs: 2, microJobsPerMacro: 160, workMs: 50 }) },
  { name: '50ms:8', run: () => runInProcess({ peers: 8, macroJobs: 4, microJobsPerMacro: 160, workMs: 50 }) },
  // each peer a process: 80 MicroJobs of 50 ms per peer = an ideal makespan of 4 s; peers / 2 MacroJobs
  { name: 'proc:4', run: () => runProcesses({ peers: 4, macroJobs: 2, microJobsPerMacro: procPerMacro, workMs: 50 }) },
  { name: 'proc:8', run: () => runProcesses({ peers: 8, macroJobs: 4, microJobsPerMacro: procPerMacro, workMs: 50 }) },
  { name: 'proc:16', run: () => runProcesses({ peers: 16, macroJobs: 8, microJobsPerMacro: procPerMacro, workMs: 50 }) },
  { name: 'failover:4', run: () => runFailover({ peers: 4, microJobs: 160, workMs: 50 }) }
].filter(r => only == null || only.includes(r.name))

const rows = []
for (const row of ROWS) {
  const results = []
  for (let i = 0; i < RUNS; i++) {
    const load = loadavg()
    let r
    try {
      r = await row.run()
    } catch (err) {
      // a run that cannot finish (16 peer processes that never mesh on 2 cores) is reported, and the row ends there:
      // the other rows still run and are written
      process.stdout.write(`${row.name} run ${i + 1}/${RUNS} (load ${load.map(l => l.toFixed(2)).join(' ')}): failed: ${err.message}\n`)
      results.push({ error: err.message })
      break
    }
    results.push(r)
    process.stdout.write(`${row.name} run ${i + 1}/${RUNS} (load ${load.map(l => l.toFixed(2)).join(' ')}): ${runLine(row.name, r)}\n`)
  }
  const done = results.filter(r => r.error == null)
  rows.push({ name: row.name, runs: results, ...(done.length > 0 ? summarize(done) : {}), errors: results.filter(r => r.error != null).map(r => r.error) })
}

const load = loadavg()
process.stdout.write('\n' + formatTable(rows) + '\n')
process.stdout.write(`load average ${load.map(l => l.toFixed(2)).join(' ')} on ${cpus().length} cores; warnings: ${warnings.length === 0 ? 'none' : warnings.join('; ')}\n`)

mkdirSync(join(here, 'out'), { recursive: true })
writeFileSync(join(here, 'out', 'coordination.json'), JSON.stringify({
  date: new Date().toISOString(),
  node: process.version,
  cpus: cpus().length,
  loadavg: load,
  runsPerRow: RUNS,
  warnings,
  targets: {
    perSecond8Peers: 1000,
    claimToStartP50Ms: 5,
    ratio8Processes: 1.15,
    ratio16Processes: 1.3,
    cpuMsPerMicroJob8: 1,
    failoverMs: 4000,
    failoverLost: 0
  },
  rows
}, null, 2) + '\n')
process.stdout.write('wrote bench/out/coordination.json\n')
