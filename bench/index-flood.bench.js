#!/usr/bin/env node
// A flood of announcements (the fourth audit's finding; docs/crdt.md, Ownership; docs/settlement.md, Known gaps),
// on a devnet of 4 real `jobmesh` peer processes (startDevnet: anvil, the contracts, registered peers):
//
//   npm run build && node bench/index-flood.bench.js       (--help: the settings below)
//   INDEX_FLOOD_N=2000 node bench/index-flood.bench.js     (fewer announcements)
//
// A job is submitted and released first (its spec is the flood's template). Then a node that is not registered (the
// e2e attacker's stack) dials every peer and signs INDEX_FLOOD_N (default 15 000) valid announcements of job ids
// nobody funded, the released job's spec re-signed, each written to its `jobmesh/index` and published on `/jobs`,
// as fast as it can. Measured:
//   writeMs          how long the attacker took to write them;
//   floodCpuMs       user + system CPU of the 4 peer processes meanwhile;
//   afterCpuShare    their CPU in the 30 s after, as a share of the machine's cores;
//   releaseMs        a job of 8 MicroJobs submitted then: submit -> Released (or null, not within 300 s);
//   indexEntries, indexBytes   peer 0's index as a fresh node that syncs it sees it (announcements, Yjs state);
//   rssKb            each peer process's resident memory at the end.
// Writes bench/out/index-flood.json with those fields and the load average (start, end).
import '@jobmesh/peer/polyfill'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseEther } from 'ethers'
import * as Y from 'yjs'
import { submitMandelbrot } from '@jobmesh/examples'
import { INDEX_JOBS_MAP, recordVerifier } from '@jobmesh/peer/coord'
import { INDEX_DOC } from '@jobmesh/peer/crdt'
import { announceJob, readAnnouncement } from '@jobmesh/peer/jobs'
import { DEFAULT_PRICING } from '@jobmesh/peer/protocol'
import { startAttacker, stopAttacker } from '../test/e2e/attacker.js'
import { startNetwork } from '../test/e2e/network.js'

const USAGE = `usage: node bench/index-flood.bench.js   (after npm run build; no arguments but --help)
  INDEX_FLOOD_N=n   announcements the unregistered node writes (default 15000)
measures what a flood of announcements of unfunded jobs costs a devnet of 4 peers; writes bench/out/index-flood.json
`
const args = process.argv.slice(2)
if (args.includes('--help') || args.includes('-h')) {
  process.stdout.write(USAGE)
  process.exit(0)
}
if (args.length > 0) {
  process.stderr.write(`index-flood bench: unknown argument(s) ${args.join(' ')}\n${USAGE}`)
  process.exit(2)
}
const N = Number(process.env.INDEX_FLOOD_N ?? '15000')
if (!Number.isInteger(N) || N < 1) {
  process.stderr.write('index-flood bench: INDEX_FLOOD_N must be an integer >= 1\n')
  process.exit(2)
}
const here = dirname(fileURLToPath(import.meta.url))
const IMAGE = { width: 64, height: 32, x0: -2.2, y0: 1.2, x1: 0.9, y1: -1.2, maxIter: 64 }
const AFTER_MS = 30_000
const RELEASE_TIMEOUT_MS = 300_000

/** User + system CPU of a process so far (ms), from /proc (clock ticks of 10 ms). */
function cpuMs (pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10
}
const rssKb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1])

async function submitAndRelease (client) {
  const start = Date.now()
  const job = await submitMandelbrot(client, { image: IMAGE, macroJobs: 4, microJobsPerMacro: 2, price: parseEther('0.1') })
  try {
    await client.waitForRelease(job.jobId, { timeoutMs: RELEASE_TIMEOUT_MS })
    return { job, releaseMs: Date.now() - start }
  } catch (err) {
    if (err.name !== 'ReleaseTimeoutError') throw err
    return { job, releaseMs: null }
  }
}

const loadStart = loadavg()
const net = await startNetwork({ peers: 4 })
const { devnet, client } = net
const pids = devnet.peers.map(p => p.child.pid)
const peersCpu = () => pids.reduce((sum, pid) => sum + cpuMs(pid), 0)
let result
try {
  const { job: template } = await submitAndRelease(client)
  const attacker = await startAttacker(devnet)
  try {
    const index = await attacker.docs.open(INDEX_DOC)
    const record = index.getMap(INDEX_JOBS_MAP).get(template.jobId.toLowerCase())
    const verdict = readAnnouncement(record, recordVerifier(), () => undefined, DEFAULT_PRICING)
    if (verdict.kind !== 'new') throw new Error(`the template job's announcement did not read (${verdict.kind})`)
    const { spec, specCid } = verdict.job
    const cpu0 = peersCpu()
    const t0 = Date.now()
    for (let i = 0; i < N; i++) {
      const jobId = `0x${(i + 1).toString(16).padStart(64, 'f')}`
      await announceJob({ ...attacker.node, docs: attacker.docs }, spec, jobId, specCid, DEFAULT_PRICING)
      if (i % 1000 === 999) process.stdout.write(`  ${i + 1} announcements written\n`)
    }
    const writeMs = Date.now() - t0
    const floodCpuMs = peersCpu() - cpu0
    const cpu1 = peersCpu()
    const t1 = Date.now()
    await new Promise(resolve => setTimeout(resolve, AFTER_MS))
    const afterCpuShare = (peersCpu() - cpu1) / (Date.now() - t1) / cpus().length
    const { releaseMs } = await submitAndRelease(client)
    const observer = await startAttacker({ peers: [devnet.peers[0]], bootstrap: [] })
    try {
      const seen = await observer.docs.open(INDEX_DOC)
      result = {
        announcements: N,
        writeMs,
        floodCpuMs,
        afterCpuShare: Number(afterCpuShare.toFixed(3)),
        releaseMs,
        indexEntries: seen.getMap(INDEX_JOBS_MAP).size,
        indexBytes: Y.encodeStateAsUpdate(seen).length,
        rssKb: pids.map(rssKb)
      }
    } finally {
      await stopAttacker(observer)
    }
  } finally {
    await stopAttacker(attacker)
  }
} finally {
  await net.stop()
}
result.loadAverage = { start: loadStart, end: loadavg() }
process.stdout.write(`index flood (${N} announcements of unfunded jobs from one unregistered node, 4 peers, ${cpus().length} cores)\n`)
for (const [k, v] of Object.entries(result)) process.stdout.write(`  ${k.padEnd(16)} ${JSON.stringify(v)}\n`)
mkdirSync(join(here, 'out'), { recursive: true })
writeFileSync(join(here, 'out', 'index-flood.json'), JSON.stringify(result, null, 2) + '\n')
