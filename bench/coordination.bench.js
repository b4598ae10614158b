#!/usr/bin/env node
// Coordination bench (DESIGN 11: >= 1 000 no-op MicroJobs/s across 8 peers, claim-to-start p50 < 5 ms,
// makespan <= 1.15 x ideal). Real libp2p nodes on loopback TCP in one process, real Yjs docs, the real processor
// loop with production defaults (leases, heartbeat, settle window, batch sizes); only the executor is a stand-in.
//
//   npm run build && node bench/coordination.bench.js
//
// Runs:
// - throughput: a job of no-op MicroJobs with 2, 4 and 8 peers; MicroJobs/s from the first start to the last
//   done, and claim-to-start latency (the processor's `microjob:start.claimToStartMs`) p50 / p99.
// - makespan: MicroJobs of 50 ms (timer) work; makespan = announce to last done; ideal = total work / peers.
// - failover: 4 peers, one MacroJob of 50 ms MicroJobs; once a quarter is done, the peer that just received the
//   queue is stopped abruptly (`processor.stop({ abrupt: true })` + libp2p stop: no snapshot, no handoff, like
//   kill -9). Measures kill -> first MicroJob of that MacroJob locked after the kill and started by another peer
//   (target ownerTimeout 3 s + 1 s) and MicroJobs lost (no result on the survivors, must be 0).
// Also counts MicroJobs run more than once (must be 0). Writes bench/out/coordination.json.
if (typeof Promise.withResolvers !== 'function') {
  Promise.withResolvers = function () {
    let resolve, reject
    const promise = new Promise((res, rej) => { resolve = res; reject = rej })
    return { promise, resolve, reject }
  }
}

import { mkdirSync, writeFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  computeJobId, createDocStore, createNode, createProcessor, jobsTopic, parseJobSpec, testExecutor
} from '../packages/peer/dist/index.js'

const here = dirname(fileURLToPath(import.meta.url))
// stopping many nodes at once can leave a dial in flight that fails after its caller gave up: not a bench failure
process.on('uncaughtException', (err) => {
  if (err?.code === 'ECONNRESET' || err?.code === 'ECONNREFUSED' || err?.code === 'EPIPE') return
  throw err
})
const TIMEOUT_MS = 180_000

function jobSpec (macroJobs, microJobsPerMacro) {
  const spec = parseJobSpec({
    version: 1,
    creator: '0x00000000000000000000000000000000000000a1',
    codeUri: 'ipfs://bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy',
    dataUri: 'https://example.org/data.bin',
    blockSize: 16,
    blockCount: macroJobs * microJobsPerMacro,
    slicing: { macroJobs, microJobsPerMacro, blocksPerMicro: 1 },
    seed: String(Math.floor(Math.random() * 1e9)),
    requirements: { minVramGb: 1 },
    price: '10000000000000000000',
    estimate: { overheadSeconds: 30, secondsPerMicroJob: 1 },
    verifiers: 3,
    deadline: 1_900_000_000_000
  })
  const specCid = 'bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy'
  return { spec, specCid, jobId: computeJobId(spec.creator, specCid, BigInt(Math.floor(Math.random() * 1e9))) }
}

async function until (cond, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise(resolve => setTimeout(resolve, 20))
  }
}

async function startPeers (n, executor) {
  const peers = []
  for (let i = 0; i < n; i++) {
    const node = await createNode()
    const docs = createDocStore(node)
    const processor = createProcessor({ ...node, docs }, { executor, hardware: { gpuModel: 'cpu', vramGb: 8 } })
    peers.push({ node, docs, processor })
  }
  // libp2p refuses more than 5 inbound connections per second from one host (inboundConnectionThreshold), and a
  // refused loopback dial can hang: orient the mesh so no node receives more than n / 2 dials
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const [from, to] = j - i <= n / 2 ? [i, j] : [j, i]
      await peers[from].node.libp2p.dial(peers[to].node.libp2p.getMultiaddrs()[0], { signal: AbortSignal.timeout(10_000) })
    }
  }
  await Promise.all(peers.map(async p => p.processor.start()))
  await until(() => peers.every(p => p.node.pubsub.getSubscribers(jobsTopic()).length >= n - 1), 10_000, 'the /jobs mesh')
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

/** Runs one job on `peers` fresh peers; returns the measurements. */
async function runJob ({ peers: n, macroJobs, microJobsPerMacro, workMs }) {
  const peers = await startPeers(n, testExecutor({ workMs }))
  const total = macroJobs * microJobsPerMacro
  const runs = new Map()
  const claimToStart = []
  let firstStart = Infinity
  let lastDone = 0
  for (const p of peers) {
    p.processor.addEventListener('microjob:start', (evt) => {
      firstStart = Math.min(firstStart, performance.now())
      claimToStart.push(evt.detail.claimToStartMs)
    })
    p.processor.addEventListener('microjob:done', (evt) => {
      lastDone = performance.now()
      const key = `${evt.detail.macroIndex}.${evt.detail.index}`
      runs.set(key, (runs.get(key) ?? 0) + 1)
    })
  }
  const job = jobSpec(macroJobs, microJobsPerMacro)
  const complete = Promise.all(peers.map(p => new Promise(resolve => {
    p.processor.addEventListener('job:complete', () => { resolve() })
  })))
  const announced = performance.now()
  try {
    await peers[0].processor.announceJob(job.spec, job.jobId, job.specCid)
    await Promise.race([complete, new Promise((resolve, reject) => setTimeout(() => { reject(new Error('job timed out')) }, TIMEOUT_MS).unref())])
    await until(() => runs.size === total, 10_000, 'every MicroJob done')
  } finally {
    await stopPeers(peers)
  }
  claimToStart.sort((a, b) => a - b)
  const executions = [...runs.values()].reduce((a, b) => a + b, 0)
  const handoffs = peers.reduce((a, p) => a + p.processor.metrics.handoffs, 0)
  const failovers = peers.reduce((a, p) => a + p.processor.metrics.failovers, 0)
  const activeMs = lastDone - firstStart
  return {
    peers: n,
    macroJobs,
    microJobs: total,
    workMs,
    executions,
    duplicates: executions - runs.size,
    handoffs,
    failovers,
    startupMs: Math.round(firstStart - announced),
    activeMs: Math.round(activeMs),
    makespanMs: Math.round(lastDone - announced),
    perSecond: Math.round(total / (activeMs / 1000)),
    claimToStartP50: percentile(claimToStart, 0.5),
    claimToStartP99: percentile(claimToStart, 0.99)
  }
}

/** Kills the queue owner of a 4-peer, one-MacroJob job of 50 ms MicroJobs; times the queue moving on. */
async function runFailover ({ peers: n, microJobs, workMs }) {
  const peers = await startPeers(n, testExecutor({ workMs }))
  const runs = new Map()
  const job = jobSpec(1, microJobs)
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
      const now = performance.now()
      if (now - evt.detail.claimToStartMs < victim.killedAt) return
      resumedAt = now
      resume()
    })
    p.processor.addEventListener('ownership', (evt) => {
      if (victim != null && p !== victim.peer && failoverOwnershipAt == null && evt.detail.epoch > victim.epoch) {
        failoverOwnershipAt = performance.now()
      }
      // the victim: whoever receives the queue once a quarter is done, with work left; it dies holding the queue
      if (victim != null || runs.size < microJobs / 4) return
      const state = contextOf(p)?.rooms.get(evt.detail.macroIndex)?.state
      if (state == null || state.owner !== p.node.libp2p.peerId.toString()) return
      victim = { peer: p, epoch: evt.detail.epoch, doneAtKill: runs.size, killedAt: performance.now() }
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
    await Promise.race([until(() => victim != null, TIMEOUT_MS, 'a queue owner to kill'), completes.get(peers[0])])
    if (victim == null) throw new Error('the job finished before a queue owner could be killed')
    await crash
    const survivors = peers.filter(p => p !== victim.peer)
    await Promise.race([resumed, timeout('the queue moving on')])
    await Promise.race([Promise.all(survivors.map(p => completes.get(p))), timeout('the job')])
    // lost = MicroJobs without a result on a survivor, once every survivor's doc has settled
    const resultsOf = (p) => new Set([...contextOf(p).doc.getMap('results').keys()].map(k => k.split('/')[0]))
    await until(() => survivors.every(p => resultsOf(p).size === microJobs), 10_000, 'every result synced').catch(() => {})
    const lost = microJobs - Math.min(...survivors.map(p => resultsOf(p).size))
    const executions = [...runs.values()].reduce((a, b) => a + b, 0)
    return {
      peers: n,
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

// COORD_BENCH_ONLY=no-op:8,50ms:8 runs a subset (default: every run)
const only = process.env.COORD_BENCH_ONLY?.split(',')
const wanted = (kind, peers) => only == null || only.includes(`${kind}:${peers}`)

const throughput = []
for (const [peers, microJobs] of [[2, 1_000], [4, 2_000], [8, 2_000]]) {
  if (!wanted('no-op', peers)) continue
  const macroJobs = Math.max(1, peers / 2)
  throughput.push(await runJob({ peers, macroJobs, microJobsPerMacro: microJobs / macroJobs, workMs: 0 }))
  const r = throughput[throughput.length - 1]
  process.stdout.write(`no-op ${r.peers} peers: ${r.perSecond} MicroJobs/s, claim-to-start p50 ${r.claimToStartP50} ms p99 ${r.claimToStartP99} ms, duplicates ${r.duplicates}, failovers ${r.failovers}\n`)
}

const makespan = []
for (const [peers, microJobs] of [[4, 320], [8, 640]]) {
  if (!wanted('50ms', peers)) continue
  const workMs = 50
  const macroJobs = Math.max(1, peers / 2)
  const r = await runJob({ peers, macroJobs, microJobsPerMacro: microJobs / macroJobs, workMs })
  const idealMs = microJobs * workMs / peers
  makespan.push({ ...r, idealMs, ratio: Number((r.makespanMs / idealMs).toFixed(3)), activeRatio: Number((r.activeMs / idealMs).toFixed(3)) })
  process.stdout.write(`50 ms work ${peers} peers: makespan ${r.makespanMs} ms, ideal ${idealMs} ms, duplicates ${r.duplicates}, failovers ${r.failovers}\n`)
}

const failover = []
if (wanted('failover', 4)) {
  const r = await runFailover({ peers: 4, microJobs: 160, workMs: 50 })
  failover.push(r)
  process.stdout.write(`failover 4 peers: kill -> next start ${r.killToNextStartMs} ms (target ${r.targetMs}), kill -> new owner ${r.killToFailoverOwnershipMs} ms, lost ${r.lost}, duplicates ${r.duplicates}, failovers ${r.failovers}\n`)
}

const rows = [
  ['run', 'peers', 'MicroJobs', 'MacroJobs', 'MicroJobs/s', 'claim->start p50 / p99 (ms)', 'startup (ms)', 'makespan / ideal', 'dup', 'failovers'],
  ...throughput.map(r => ['no-op', r.peers, r.microJobs, r.macroJobs, r.perSecond, `${r.claimToStartP50} / ${r.claimToStartP99}`, r.startupMs, '', r.duplicates, r.failovers]),
  ...makespan.map(r => ['50 ms', r.peers, r.microJobs, r.macroJobs, r.perSecond, `${r.claimToStartP50} / ${r.claimToStartP99}`, r.startupMs,
    `${r.makespanMs} / ${r.idealMs} = ${r.ratio} (active ${r.activeRatio})`, r.duplicates, r.failovers]),
  ...failover.map(r => ['failover', r.peers, r.microJobs, 1, '', '', '', `kill -> next start ${r.killToNextStartMs} ms (target ${r.targetMs}), lost ${r.lost}`, r.duplicates, r.failovers])
]
const widths = rows[0].map((_, c) => Math.max(...rows.map(r => String(r[c]).length)))
process.stdout.write('\n' + rows.map(r => r.map((v, c) => String(v).padEnd(widths[c])).join(' | ')).join('\n') + '\n')

mkdirSync(join(here, 'out'), { recursive: true })
writeFileSync(join(here, 'out', 'coordination.json'), JSON.stringify({
  date: new Date().toISOString(),
  node: process.version,
  cpus: cpus().length,
  loadavg: loadavg(),
  targets: { perSecond8Peers: 1000, claimToStartP50Ms: 5, makespanRatio: 1.15, failoverMs: 4000, failoverLost: 0 },
  throughput,
  makespan,
  failover
}, null, 2) + '\n')
process.stdout.write('wrote bench/out/coordination.json\n')
