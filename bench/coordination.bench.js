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
//   COORD_BENCH_GOSSIP='{"D":2}' ... (multi-process rows: gossipsub parameters over the node's defaults)
//
// Rows (each run COORD_BENCH_RUNS times, default 5; the table shows the median and the worst run):
// - no-op:2/4/8   in one process, a job of no-op MicroJobs; perSecond = MicroJobs / (last done - first start).
// - 50ms:4/8      in one process, 50 ms (timer) MicroJobs; makespan = announce -> last done; ideal = work / peers.
// - proc:4/8/16   each peer its own OS process (bench/coordination-peer.js: createNode + createDocStore +
//                 createProcessor, as `jobmesh start`), 50 ms MicroJobs, 80 per peer (ideal makespan 4 s).
// - failover:4    in one process; 4 peers, one MacroJob of 50 ms MicroJobs; once a quarter is done, the peer that just
//                 received the queue is stopped abruptly (`processor.stop({ abrupt: true })` + libp2p stop: no
//                 snapshot, no handoff, like kill -9). kill -> first MicroJob of that MacroJob locked after the kill
//                 and started by another peer (target ownerTimeout 3 s + 1 s), MicroJobs lost (must be 0).
// Per row: peers, processes, microJobs, workMs, makespanMs, idealMs, ratio, perSecond, duplicates (MicroJobs run more
// than once), failovers, cpuMsPerMicroJob (user + system CPU of all peers / MicroJobs; in one process: the whole
// process), messagesPerMicroJob (gossip messages published by all peers / MicroJobs), deliveriesPerMicroJob (gossip
// messages received by all peers / MicroJobs), signatureVerificationsPerMicroJob (gossipsub StrictSign checks of
// received messages + record signature checks, all peers / MicroJobs), bytesPerMicroJob (gossip bytes published),
// and per message kind, startupMs / lastPeerStartMs (announce -> the first MicroJob of the first / the last peer). Counters come from the code paths (`createTrafficCounters`, given to the doc store and the
// processor). Writes bench/out/coordination.json.
import '@jobmesh/peer/polyfill'
import { fork } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { doneMicroJobs, jobsTopic, recordVerifier } from '@jobmesh/peer/coord'
import { createNode } from '@jobmesh/peer/node'
import { createProcessor } from '@jobmesh/peer/processor'
import { testExecutor, testJob, waitFor } from '@jobmesh/testkit'
import { createTrafficCounters } from '@jobmesh/peer/protocol'
import { stopChildren } from './child-processes.js'
import { countersSince } from './coordination-counters.js'
import { benchDocStore } from './coordination-docs.js'

const here = dirname(fileURLToPath(import.meta.url))
// stopping many nodes at once can leave a dial in flight that fails after its caller gave up: not a bench failure
process.on('uncaughtException', (err) => {
  if (err?.code === 'ECONNRESET' || err?.code === 'ECONNREFUSED' || err?.code === 'EPIPE') return
  throw err
})
const warnings = []
process.on('warning', (w) => { warnings.push(`${w.name}: ${w.message}`) })
const TIMEOUT_MS = 180_000
/** A peer process is quiet when it used less than this much CPU in the last second (ms; multi-process rows). */
const QUIET_MS_PER_SECOND = 12
/** How long the bench waits for every peer process to be quiet before it announces the job anyway (ms). */
const QUIET_TIMEOUT_MS = 30_000
const RUNS = Number(process.env.COORD_BENCH_RUNS ?? '5')
const now = () => performance.timeOrigin + performance.now()

/** libp2p refuses bursts of inbound connections from one host: orient the mesh so no node receives more than n / 2. */
function dialPlan (n) {
  const plan = Array.from({ length: n }, () => [])
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const [from, to] = j - i <= n / 2 ? [i, j] : [j, i]
      plan[from].push(to)
    }
  }
  return plan
}

async function startPeers (n, executor) {
  const peers = []
  for (let i = 0; i < n; i++) {
    const counters = createTrafficCounters()
    const node = await createNode()
    const docs = benchDocStore(node, counters)
    const processor = createProcessor({ ...node, docs, counters }, { executor, hardware: { gpuModel: 'cpu', vramGb: 8 } })
    peers.push({ node, docs, processor, counters })
  }
  const plan = dialPlan(n)
  for (let i = 0; i < n; i++) {
    for (const j of plan[i]) {
      await peers[i].node.libp2p.dial(peers[j].node.libp2p.getMultiaddrs()[0], { signal: AbortSignal.timeout(10_000) })
    }
  }
  await Promise.all(peers.map(async p => p.processor.start()))
  await waitFor(() => peers.every(p => p.node.pubsub.getSubscribers(jobsTopic()).length >= n - 1), { timeoutMs: 10_000, what: 'the /jobs mesh' })
  return peers
}

async function stopPeers (peers) {
  await Promise.all(peers.map(async p => {
    await p.processor.stop().catch(() => {})
    await p.docs.stop().catch(() => {})
    await p.node.stop().catch(() => {})
  }))
}

function percentile (sorted, p) {
  if (sorted.length === 0) return NaN
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]
}

const round3 = (x) => Number(x.toFixed(3))

/** The issue's fields from what a run observed. */
function fields ({ peers, processes, microJobs, workMs, announced, firstStart, peerStarts, quietMs, notQuiet, lastDone, runs, failovers, handoffs, cpuMs, counters, claimToStart }) {
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
    messagesPerMicroJob: round3(sum(c => c.messagesSent) / microJobs),
    deliveriesPerMicroJob: round3(sum(c => c.messagesReceived) / microJobs),
    signatureVerificationsPerMicroJob: round3(sum(c => c.messageVerifications + c.recordVerifications) / microJobs),
    messageVerificationsPerMicroJob: round3(sum(c => c.messageVerifications) / microJobs),
    recordVerificationsPerMicroJob: round3(sum(c => c.recordVerifications) / microJobs),
    recordSignaturesPerMicroJob: round3(sum(c => c.recordSignatures) / microJobs),
    bytesPerMicroJob: Math.round(sum(c => c.bytesSent) / microJobs),
    startupMs: Math.round(firstStart - announced),
    // the announcement to the first MicroJob of the peer that started last
    lastPeerStartMs: peerStarts.size < peers ? null : Math.round(Math.max(...peerStarts.values()) - announced),
    // multi-process rows: how long the peers took to be quiet after the mesh formed, and how many never were
    ...(processes ? { quietMs: Math.round(quietMs), notQuiet } : {}),
    claimToStartP50: percentile(claimToStart, 0.5),
    claimToStartP99: percentile(claimToStart, 0.99),
    kinds
  }
}

/** Per peer: what it ran and when; per room (multi-process rows): who owned the queue when. Times from the announcement. */
function writeTimeline (name, { events, announced, ...rest }) {
  mkdirSync(join(here, 'out'), { recursive: true })
  writeFileSync(join(here, 'out', name), JSON.stringify({
    ...rest, announced, events: events.map(e => ({ ...e, at: Math.round(e.at - announced) }))
  }) + '\n')
}

/** Runs one job on `peers` fresh in-process peers. */
async function runInProcess ({ peers: n, macroJobs, microJobsPerMacro, workMs }) {
  const peers = await startPeers(n, testExecutor({ workMs }))
  const total = macroJobs * microJobsPerMacro
  const runs = new Map()
  const claimToStart = []
  let firstStart = Infinity
  const peerStarts = new Map()
  let lastDone = 0
  const timeline = []
  for (const [i, p] of peers.entries()) {
    p.processor.addEventListener('microjob:start', (evt) => {
      firstStart = Math.min(firstStart, now())
      if (!peerStarts.has(i)) peerStarts.set(i, now())
      claimToStart.push(evt.detail.claimToStartMs)
      timeline.push({ peer: i, type: 'start', key: `${evt.detail.macroIndex}.${evt.detail.index}`, at: now() })
    })
    p.processor.addEventListener('microjob:done', (evt) => {
      lastDone = now()
      const key = `${evt.detail.macroIndex}.${evt.detail.index}`
      runs.set(key, (runs.get(key) ?? 0) + 1)
      timeline.push({ peer: i, type: 'done', key, at: lastDone })
    })
  }
  const job = testJob(macroJobs, microJobsPerMacro)
  const complete = Promise.all(peers.map(p => new Promise(resolve => {
    p.processor.addEventListener('job:complete', () => { resolve() })
  })))
  const cpu = process.cpuUsage()
  const countersAtStart = peers.map(p => structuredClone(p.counters))
  const announced = now()
  let cpuMs
  let counted
  try {
    await peers[0].processor.announceJob(job.spec, job.jobId, job.specCid)
    await Promise.race([complete, new Promise((resolve, reject) => setTimeout(() => { reject(new Error('job timed out')) }, TIMEOUT_MS).unref())])
    await waitFor(() => runs.size === total, { timeoutMs: 10_000, what: 'every MicroJob done' })
    const used = process.cpuUsage(cpu)
    cpuMs = (used.user + used.system) / 1000
    counted = peers.map((p, i) => countersSince(p.counters, countersAtStart[i]))
  } finally {
    await stopPeers(peers)
  }
  if (process.env.COORD_BENCH_TIMELINE != null) writeTimeline(`coordination-timeline-inproc-${n}.json`, { peers: n, workMs, announced, events: timeline })
  return fields({
    peers: n,
    processes: false,
    microJobs: total,
    workMs,
    announced,
    firstStart,
    peerStarts,
    lastDone,
    runs,
    failovers: peers.reduce((a, p) => a + p.processor.metrics.failovers, 0),
    handoffs: peers.reduce((a, p) => a + p.processor.metrics.handoffs, 0),
    cpuMs,
    counters: counted,
    claimToStart
  })
}

/** A peer process of the multi-process rows, with a promise per awaited message type. */
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
  const runs = new Map()
  const claimToStart = []
  let firstStart = Infinity
  const peerStarts = new Map()
  let lastDone = 0
  let completes = 0
  let quietMs = 0
  let notQuiet = 0
  const onEvent = (msg) => {
    if (msg.type === 'start') {
      firstStart = Math.min(firstStart, msg.at)
      claimToStart.push(msg.claimToStartMs)
    } else if (msg.type === 'done') {
      lastDone = Math.max(lastDone, msg.at)
      runs.set(msg.key, (runs.get(msg.key) ?? 0) + 1)
    } else if (msg.type === 'complete') {
      completes++
    }
  }
  const children = Array.from({ length: n }, (_, i) => startChild(workMs, (msg) => {
    onEvent(msg)
    if (msg.type === 'start' && !peerStarts.has(i)) peerStarts.set(i, msg.at)
    if (msg.type === 'start' || msg.type === 'done' || msg.type === 'ownership') timeline.push({ peer: i, ...msg })
  }))
  const timeline = []
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
      firstStart = Infinity
      lastDone = 0
      for (const seen of [runs, peerStarts]) seen.clear()
      for (const list of [claimToStart, timeline]) list.length = 0
    }
    const job = testJob(macroJobs, microJobsPerMacro)
    const announced = now()
    children[0].child.send({ type: 'announce', job: { spec: job.input, jobId: job.jobId, specCid: job.specCid } })
    await waitFor(() => completes === n, { timeoutMs: TIMEOUT_MS, what: 'job:complete on every peer' })
    await waitFor(() => runs.size === total, { timeoutMs: 10_000, what: 'every MicroJob done' })
    const reports = await Promise.all(children.map(async c => {
      const report = c.next('report')
      c.child.send({ type: 'report' })
      return await report
    }))
    if (process.env.COORD_BENCH_TIMELINE != null) {
      writeTimeline(`coordination-timeline-${n}.json`, { peers: n, peerIds: ready.map(r => r.peerId), workMs, announced, events: timeline })
    }
    return fields({
      peers: n,
      processes: true,
      microJobs: total,
      workMs,
      announced,
      firstStart,
      peerStarts,
      quietMs,
      notQuiet,
      lastDone,
      runs,
      failovers: reports.reduce((a, r) => a + r.metrics.failovers, 0),
      handoffs: reports.reduce((a, r) => a + r.metrics.handoffs, 0),
      cpuMs: reports.reduce((a, r) => a + (r.cpu.user + r.cpu.system) / 1000, 0),
      counters: reports.map(r => r.counters),
      claimToStart
    })
  } finally {
    await stopChildren(children)
  }
}

/** Kills the queue owner of a one-MacroJob job of 50 ms MicroJobs; times the queue moving on. */
async function runFailover ({ peers: n, microJobs, workMs }) {
  const peers = await startPeers(n, testExecutor({ workMs }))
  const runs = new Map()
  const job = testJob(1, microJobs)
  const contextOf = (p) => p.processor.contexts.get(job.jobId)
  let victim
  let crash
  let resumedAt
  let failoverOwnershipAt
  const { promise: resumed, resolve: resume } = Promise.withResolvers()
  for (const p of peers) {
    p.processor.addEventListener('microjob:done', (evt) => {
      const key = `${evt.detail.macroIndex}.${evt.detail.index}`
      runs.set(key, (runs.get(key) ?? 0) + 1)
    })
    p.processor.addEventListener('microjob:start', (evt) => {
      if (victim == null || p === victim.peer || resumedAt != null || evt.detail.macroIndex !== 0) return
      // a MicroJob locked after the kill (items of batches locked earlier do not show the queue moving on)
      const t = now()
      if (t - evt.detail.claimToStartMs < victim.killedAt) return
      resumedAt = t
      resume()
    })
    p.processor.addEventListener('ownership', (evt) => {
      if (victim != null && p !== victim.peer && failoverOwnershipAt == null && evt.detail.epoch > victim.epoch) {
        failoverOwnershipAt = now()
      }
      // the victim: whoever receives the queue once a quarter is done, with work left; it dies holding the queue
      if (victim != null || runs.size < microJobs / 4) return
      const state = contextOf(p)?.rooms.get(evt.detail.macroIndex)?.state
      if (state == null || state.owner !== p.node.libp2p.peerId.toString()) return
      victim = { peer: p, epoch: evt.detail.epoch, doneAtKill: runs.size, killedAt: now() }
      crash = (async () => {
        await p.processor.stop({ abrupt: true })
        await p.node.libp2p.stop()
      })()
    })
  }
  const completes = new Map(peers.map(p => [p, new Promise(resolve => { p.processor.addEventListener('job:complete', () => { resolve() }) })]))
  const timeout = (what) => new Promise((resolve, reject) => setTimeout(() => { reject(new Error(`${what} timed out`)) }, TIMEOUT_MS).unref())
  try {
    await peers[0].processor.announceJob(job.spec, job.jobId, job.specCid)
    await Promise.race([waitFor(() => victim != null, { timeoutMs: TIMEOUT_MS, what: 'a queue owner to kill' }), completes.get(peers[0])])
    if (victim == null) throw new Error('the job finished before a queue owner could be killed')
    await crash
    const survivors = peers.filter(p => p !== victim.peer)
    await Promise.race([resumed, timeout('the queue moving on')])
    await Promise.race([Promise.all(survivors.map(p => completes.get(p))), timeout('the job')])
    // lost = MicroJobs without a result on a survivor, once every survivor's doc has settled
    const resultsOf = (p) => doneMicroJobs(contextOf(p).doc.getMap('results'), job.jobId, recordVerifier())
    await waitFor(() => survivors.every(p => resultsOf(p).size === microJobs), { timeoutMs: 10_000, what: 'every result synced' }).catch(() => {})
    const lost = microJobs - Math.min(...survivors.map(p => resultsOf(p).size))
    const executions = [...runs.values()].reduce((a, b) => a + b, 0)
    return {
      peers: n,
      processes: false,
      microJobs,
      workMs,
      ownerTimeoutMs: 3_000,
      targetMs: 4_000,
      killToNextStartMs: Math.round(resumedAt - victim.killedAt),
      killToFailoverOwnershipMs: failoverOwnershipAt == null ? null : Math.round(failoverOwnershipAt - victim.killedAt),
      doneBeforeKill: victim.doneAtKill,
      lost,
      duplicates: executions - runs.size,
      failovers: survivors.reduce((a, p) => a + p.processor.metrics.failovers, 0)
    }
  } finally {
    await stopPeers(peers)
  }
}

// which way is worse for each field (everything else: higher is worse)
const LOWER_IS_WORSE = new Set(['perSecond'])

function summarize (results) {
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

// COORD_BENCH_ONLY=no-op:8,proc:16 runs a subset (default: every row)
const only = process.env.COORD_BENCH_ONLY?.split(',')
const ROWS = [
  { name: 'no-op:2', run: () => runInProcess({ peers: 2, macroJobs: 1, microJobsPerMacro: 1_000, workMs: 0 }) },
  { name: 'no-op:4', run: () => runInProcess({ peers: 4, macroJobs: 2, microJobsPerMacro: 1_000, workMs: 0 }) },
  { name: 'no-op:8', run: () => runInProcess({ peers: 8, macroJobs: 4, microJobsPerMacro: 500, workMs: 0 }) },
  { name: '50ms:4', run: () => runInProcess({ peers: 4, macroJobs: 2, microJobsPerMacro: 160, workMs: 50 }) },
  { name: '50ms:8', run: () => runInProcess({ peers: 8, macroJobs: 4, microJobsPerMacro: 160, workMs: 50 }) },
  // each peer a process: 80 MicroJobs of 50 ms per peer = an ideal makespan of 4 s; peers / 2 MacroJobs
  { name: 'proc:4', run: () => runProcesses({ peers: 4, macroJobs: 2, microJobsPerMacro: 160, workMs: 50 }) },
  { name: 'proc:8', run: () => runProcesses({ peers: 8, macroJobs: 4, microJobsPerMacro: 160, workMs: 50 }) },
  { name: 'proc:16', run: () => runProcesses({ peers: 16, macroJobs: 8, microJobsPerMacro: 160, workMs: 50 }) },
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
    const line = row.name.startsWith('failover')
      ? `kill -> next start ${r.killToNextStartMs} ms (target ${r.targetMs}), kill -> new owner ${r.killToFailoverOwnershipMs} ms, lost ${r.lost}`
      : `makespan ${r.makespanMs} ms${r.idealMs == null ? '' : ` (ideal ${r.idealMs}, ratio ${r.ratio})`}, ${r.perSecond} MicroJobs/s, ` +
        `cpu ${r.cpuMsPerMicroJob} ms, messages ${r.messagesPerMicroJob}, deliveries ${r.deliveriesPerMicroJob}, ` +
        `signature checks ${r.signatureVerificationsPerMicroJob} per MicroJob, start ${r.startupMs} / ${r.lastPeerStartMs} ms (first / last peer)` +
        (r.quietMs == null ? '' : `, quiet after ${r.quietMs} ms${r.notQuiet > 0 ? ` (${r.notQuiet} peers never)` : ''}`)
    process.stdout.write(`${row.name} run ${i + 1}/${RUNS} (load ${load.map(l => l.toFixed(2)).join(' ')}): ${line}, ` +
      `duplicates ${r.duplicates}, failovers ${r.failovers}\n`)
  }
  const done = results.filter(r => r.error == null)
  rows.push({ name: row.name, runs: results, ...(done.length > 0 ? summarize(done) : {}), errors: results.filter(r => r.error != null).map(r => r.error) })
}

const COLUMNS = ['peers', 'processes', 'microJobs', 'workMs', 'makespanMs', 'idealMs', 'ratio', 'perSecond', 'duplicates',
  'failovers', 'cpuMsPerMicroJob', 'messagesPerMicroJob', 'signatureVerificationsPerMicroJob']
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
const load = loadavg()
process.stdout.write('\n' + table.map(r => r.map((v, c) => String(v).padEnd(widths[c])).join(' | ')).join('\n') + '\n')
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
