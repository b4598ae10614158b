#!/usr/bin/env node
// Many small jobs bench: a DApp's equally paid jobs over a few peers. Peers spread over equally paid jobs (their key
// in each job breaks ties of pay) and leave a job whose last items run elsewhere for another open job
// (docs/coordination.md, Job choice across jobs), so the jobs run side by side instead of one after another.
// Real libp2p nodes on loopback, real Yjs docs, the real processor loop with production defaults (leases, heartbeat,
// turn sizes); the executor is a timer standing for remote compute.
//
//   npm run build && node bench/many-jobs.bench.js
//   MANY_JOBS_RUNS=3 MANY_JOBS_ROWS=4x4,8x8 node bench/many-jobs.bench.js
//
// Rows `<peers>x<jobs>`: that many peers and equally paid jobs of 1 MacroJob x 6 MicroJobs of 300 ms each, announced at
// once. Per row (median and worst of MANY_JOBS_RUNS runs, default 5): peers, jobs, microJobs, workMs, makespanMs
// (announce -> last MicroJob done), idealMs (work / peers), ratio, firstJobMs (announce -> the first job's last
// MicroJob done), jobsStartedInFirstSecond (jobs with a MicroJob started within 1 s of the announcement), duplicates
// (MicroJobs run more than once). Writes bench/out/many-jobs.json.
import '@jobmesh/peer/polyfill'
import { mkdirSync, writeFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startPeers, stopPeers, testExecutor, testJob, waitFor } from '@jobmesh/testkit'

const here = dirname(fileURLToPath(import.meta.url))
const RUNS = Number(process.env.MANY_JOBS_RUNS ?? 5)
const ROWS = (process.env.MANY_JOBS_ROWS ?? '4x4,4x8,8x8').split(',').map(r => r.split('x').map(Number))
const MICRO_PER_JOB = 6
const WORK_MS = 300

// production defaults, not the test kit's short leases and heartbeats
const DEFAULTS = { heartbeatMs: undefined, ownerTimeoutMs: undefined, leases: undefined, summaryCheckMs: undefined }

async function runOnce (peerCount, jobCount) {
  const peers = await startPeers(peerCount, { ...DEFAULTS, executor: testExecutor({ workMs: WORK_MS }) })
  try {
    const jobs = Array.from({ length: jobCount }, () => testJob(1, MICRO_PER_JOB))
    const starts = []
    const done = new Map()
    for (const p of peers) {
      p.processor.addEventListener('microjob:start', (e) => { starts.push({ key: `${e.detail.jobId}/${e.detail.index}`, jobId: e.detail.jobId, at: performance.now() }) })
      p.processor.addEventListener('microjob:done', (e) => { done.set(`${e.detail.jobId}/${e.detail.index}`, { jobId: e.detail.jobId, at: performance.now() }) })
    }
    for (const job of jobs) await peers[0].processor.announceJob(job.spec, job.jobId, job.specCid)
    const t0 = performance.now()
    await Promise.all(peers.map(async p => { await p.processor.start() }))
    const total = jobCount * MICRO_PER_JOB
    await waitFor(() => done.size >= total, { timeoutMs: 120_000, what: `${total} MicroJobs done` })
    const makespanMs = Math.max(...[...done.values()].map(d => d.at)) - t0
    const idealMs = total * WORK_MS / peerCount
    const jobEnds = jobs.map(j => Math.max(...[...done.values()].filter(d => d.jobId === j.jobId).map(d => d.at)) - t0)
    const keys = starts.map(s => s.key)
    return {
      peers: peerCount,
      jobs: jobCount,
      microJobs: total,
      workMs: WORK_MS,
      makespanMs: Math.round(makespanMs),
      idealMs,
      ratio: Number((makespanMs / idealMs).toFixed(3)),
      firstJobMs: Math.round(Math.min(...jobEnds)),
      jobsStartedInFirstSecond: new Set(starts.filter(s => s.at - t0 < 1_000).map(s => s.jobId)).size,
      duplicates: keys.length - new Set(keys).size
    }
  } finally {
    await stopPeers(peers)
  }
}

function median (values) {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]
}

const rows = []
console.log(`many-jobs: ${cpus().length} cores, load average ${loadavg().map(l => l.toFixed(2)).join(' ')}, ${RUNS} runs per row`)
for (const [peerCount, jobCount] of ROWS) {
  const runs = []
  for (let i = 0; i < RUNS; i++) runs.push(await runOnce(peerCount, jobCount))
  const worst = runs.reduce((a, b) => (b.ratio > a.ratio ? b : a))
  const row = { ...runs[0], makespanMs: median(runs.map(r => r.makespanMs)), ratio: median(runs.map(r => r.ratio)),
    firstJobMs: median(runs.map(r => r.firstJobMs)), jobsStartedInFirstSecond: median(runs.map(r => r.jobsStartedInFirstSecond)),
    duplicates: Math.max(...runs.map(r => r.duplicates)), worst, runs }
  rows.push(row)
  console.log(`${peerCount} peers x ${jobCount} jobs: makespan ${row.makespanMs} ms (ideal ${row.idealMs}, ratio ${row.ratio}, worst ${worst.ratio}),` +
    ` first job done ${row.firstJobMs} ms, ${row.jobsStartedInFirstSecond} jobs started in the first second, ${row.duplicates} run twice (most of a run)`)
}
mkdirSync(join(here, 'out'), { recursive: true })
writeFileSync(join(here, 'out', 'many-jobs.json'), JSON.stringify({ loadavg: loadavg(), cores: cpus().length, rows }, null, 2))
process.exit(0)
