#!/usr/bin/env node
// Gossip cost bench (issue #10, docs/coordination.md "How it scales"): what one gossipsub message costs in CPU on
// this machine with the node's shipped stack (`createNode`: TCP, noise, yamux, gossipsub with StrictSign, D 4, flood
// publish), and what a meshed peer costs per second with no traffic at all. The coordination bench's CPU per MicroJob
// is, to first order, (messages per MicroJob x the CPU of one message at N peers) + (the idle floor x N x makespan /
// MicroJobs): this bench measures both factors apart from the protocol.
//
//   npm run build && node bench/gossip-cost.bench.js
//   GOSSIP_BENCH_PEERS=2,8 GOSSIP_BENCH_RUNS=1 node bench/gossip-cost.bench.js
//   GOSSIP_BENCH_GOSSIPSUB='{"D":2,"Dlo":1,"Dhi":3,"Dout":0}' ...   (gossipsub options over the node's, to weigh a tuning)
//
// Per row: N peer processes on loopback (each its own OS process, every pair connected, all subscribed to one topic);
// first IDLE_MS with no message, then one peer publishes MESSAGES messages of BYTES random bytes, RATE per second.
// - idleCpuMsPerSecondPerPeer  user + system CPU of one meshed peer per second of the idle phase (mean of the peers)
// - cpuMsPerMessage            CPU of all N peers during the publishing phase, minus each peer's idle rate, per message
// - cpuMsPerDelivery           cpuMsPerMessage / (N - 1): one message arriving at one peer, forwarding included
// - publisherCpuMsPerMessage   the publisher's share of cpuMsPerMessage
// - latencyMs                  mean time from publish to delivery (one clock: the processes share the machine)
// Each row runs GOSSIP_BENCH_RUNS times (default 3); the table shows the median and the worst run (by cpuMsPerMessage).
// Writes bench/out/gossip-cost.json.
import '@jobmesh/peer/polyfill'
import { fork } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { waitFor } from '@jobmesh/testkit'
import { stopChildren } from './child-processes.js'

const here = dirname(fileURLToPath(import.meta.url))
const TOPIC = 'jobmesh/bench/gossip-cost'
const IDLE_MS = 8_000
const MESSAGES = 200
const BYTES = 800
const RATE = 25
const now = () => performance.timeOrigin + performance.now()
const round2 = (x) => Number(x.toFixed(2))

/** One peer process: a node as `jobmesh start` builds it, subscribed to the bench topic, driven over IPC. */
async function peer () {
  const { createNode } = await import('@jobmesh/peer/node')
  const { multiaddr } = await import('@multiformats/multiaddr')
  const send = (msg) => { process.send?.(msg) }
  // GOSSIP_BENCH_GOSSIPSUB='{"D":2}': gossipsub options over the node's own (to weigh a tuning; none by default)
  const node = await createNode({ listen: ['/ip4/127.0.0.1/tcp/0'], gossipsub: JSON.parse(process.env.GOSSIP_BENCH_GOSSIPSUB ?? '{}') })
  node.pubsub.subscribe(TOPIC)
  let received = 0
  let latency = 0
  let cpuMark = process.cpuUsage()
  let timeMark = now()
  node.pubsub.addEventListener('message', (evt) => {
    if (evt.detail.topic !== TOPIC) return
    const data = evt.detail.data
    received++
    latency += now() - new DataView(data.buffer, data.byteOffset, data.byteLength).getFloat64(0)
  })
  const measured = () => {
    const used = process.cpuUsage(cpuMark)
    return { cpuMs: (used.user + used.system) / 1000, elapsedMs: now() - timeMark, received, latencyMs: latency / Math.max(1, received) }
  }
  process.on('message', (msg) => {
    void (async () => {
      switch (msg.type) {
        case 'dial':
          for (const addr of msg.addrs) await node.libp2p.dial(multiaddr(addr), { signal: AbortSignal.timeout(10_000) })
          send({ type: 'dialed' })
          return
        case 'subscribers':
          send({ type: 'subscribers', subscribers: node.pubsub.getSubscribers(TOPIC).length })
          return
        case 'mark':
          cpuMark = process.cpuUsage()
          timeMark = now()
          received = 0
          latency = 0
          send({ type: 'marked' })
          return
        case 'measure':
          send({ type: 'measured', ...measured() })
          return
        case 'publish': {
          const spacing = 1000 / msg.rate
          const start = now()
          for (let i = 0; i < msg.count; i++) {
            const data = new Uint8Array(msg.bytes)
            globalThis.crypto.getRandomValues(data)
            new DataView(data.buffer).setFloat64(0, now())
            await node.pubsub.publish(TOPIC, data)
            const due = start + (i + 1) * spacing - now()
            if (due > 0) await new Promise(resolve => setTimeout(resolve, due))
          }
          send({ type: 'published' })
          return
        }
        case 'stop':
          await node.stop().catch(() => {})
          process.exit(0)
      }
    })().catch((err) => { send({ type: 'error', message: String(err?.stack ?? err) }) })
  })
  send({ type: 'ready', addr: node.libp2p.getMultiaddrs()[0].toString() })
}

/** A peer process with one waiter per awaited reply type (each bounded in time). */
function startPeer () {
  // GOSSIP_BENCH_CPU_PROF=<dir>: every peer process writes a V8 CPU profile there (node --cpu-prof)
  const prof = process.env.GOSSIP_BENCH_CPU_PROF
  const child = fork(fileURLToPath(import.meta.url), ['peer'], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv: prof == null ? [] : ['--cpu-prof', '--cpu-prof-dir', prof]
  })
  const waiters = new Map()
  child.on('message', (msg) => {
    if (msg.type === 'error') process.stderr.write(`peer process ${child.pid}: ${msg.message}\n`)
    const w = waiters.get(msg.type)
    if (w != null) {
      waiters.delete(msg.type)
      w(msg)
    }
  })
  const ask = (request, reply, timeoutMs = 60_000) => {
    const { promise, resolve, reject } = Promise.withResolvers()
    const timer = setTimeout(() => { reject(new Error(`peer process ${child.pid}: no ${reply} within ${timeoutMs} ms`)) }, timeoutMs)
    waiters.set(reply, (msg) => { clearTimeout(timer); resolve(msg) })
    child.send(request)
    return promise
  }
  const exited = new Promise(resolve => { child.once('exit', resolve) })
  return { child, ask, exited }
}

async function runRow (n) {
  const peers = Array.from({ length: n }, startPeer)
  try {
    const ready = await Promise.all(peers.map(async p => await new Promise((resolve, reject) => {
      const timer = setTimeout(() => { reject(new Error('a peer process did not start within 120 s')) }, 120_000)
      p.child.once('message', (msg) => { clearTimeout(timer); resolve(msg) })
    })))
    // every pair connected once (the lower index dials)
    await Promise.all(peers.map(async (p, i) => await p.ask({ type: 'dial', addrs: ready.slice(i + 1).map(r => r.addr) }, 'dialed')))
    await waitFor(async () => {
      const seen = await Promise.all(peers.map(async p => (await p.ask({ type: 'subscribers' }, 'subscribers')).subscribers))
      return seen.every(s => s >= n - 1)
    }, { timeoutMs: 60_000, intervalMs: 200, what: 'every peer to see every subscription' })
    // the idle phase
    await Promise.all(peers.map(async p => await p.ask({ type: 'mark' }, 'marked')))
    await new Promise(resolve => setTimeout(resolve, IDLE_MS))
    const idle = await Promise.all(peers.map(async p => await p.ask({ type: 'measure' }, 'measured')))
    const idleRate = idle.map(m => m.cpuMs / m.elapsedMs) // ms of CPU per ms
    // the publishing phase: peer 0 publishes, every other peer must receive every message
    await Promise.all(peers.map(async p => await p.ask({ type: 'mark' }, 'marked')))
    await peers[0].ask({ type: 'publish', count: MESSAGES, bytes: BYTES, rate: RATE }, 'published', 120_000)
    let busy
    await waitFor(async () => {
      busy = await Promise.all(peers.map(async p => await p.ask({ type: 'measure' }, 'measured')))
      return busy.slice(1).every(m => m.received >= MESSAGES)
    }, { timeoutMs: 60_000, intervalMs: 200, what: `every peer to receive ${MESSAGES} messages` })
    const over = busy.map((m, i) => Math.max(0, m.cpuMs - idleRate[i] * m.elapsedMs))
    const total = over.reduce((a, b) => a + b, 0)
    return {
      peers: n,
      bytes: BYTES,
      messages: MESSAGES,
      ratePerSecond: RATE,
      idleCpuMsPerSecondPerPeer: round2(idleRate.reduce((a, b) => a + b, 0) / n * 1000),
      cpuMsPerMessage: round2(total / MESSAGES),
      cpuMsPerDelivery: round2(total / MESSAGES / (n - 1)),
      publisherCpuMsPerMessage: round2(over[0] / MESSAGES),
      latencyMs: round2(busy.slice(1).reduce((a, m) => a + m.latencyMs, 0) / (n - 1))
    }
  } finally {
    await stopChildren(peers)
  }
}

async function main () {
  const sizes = (process.env.GOSSIP_BENCH_PEERS ?? '2,4,8').split(',').map(Number)
  const runs = Number(process.env.GOSSIP_BENCH_RUNS ?? '3')
  const FIELDS = ['peers', 'bytes', 'idleCpuMsPerSecondPerPeer', 'cpuMsPerMessage', 'cpuMsPerDelivery', 'publisherCpuMsPerMessage', 'latencyMs']
  const rows = []
  for (const n of sizes) {
    const results = []
    for (let r = 0; r < runs; r++) {
      const result = await runRow(n)
      results.push(result)
      console.log(`${n} peers run ${r + 1}/${runs} (load ${loadavg().map(l => l.toFixed(2)).join(' ')}): idle ${result.idleCpuMsPerSecondPerPeer} ms/s per peer, ` +
        `${result.cpuMsPerMessage} ms per message (${result.cpuMsPerDelivery} per delivery, publisher ${result.publisherCpuMsPerMessage}), latency ${result.latencyMs} ms`)
    }
    const sorted = [...results].sort((a, b) => a.cpuMsPerMessage - b.cpuMsPerMessage)
    rows.push({ name: `gossip:${n}`, runs: results, median: sorted[Math.floor((sorted.length - 1) / 2)], worst: sorted[sorted.length - 1] })
  }
  console.log('')
  console.log(['row', 'of', ...FIELDS].join(' | '))
  for (const row of rows) {
    for (const of of ['median', 'worst']) console.log([row.name, of, ...FIELDS.map(f => row[of][f])].join(' | '))
  }
  console.log(`load average ${loadavg().map(l => l.toFixed(2)).join(' ')} on ${cpus().length} cores`)
  mkdirSync(join(here, 'out'), { recursive: true })
  writeFileSync(join(here, 'out', 'gossip-cost.json'), JSON.stringify({
    date: new Date().toISOString(), node: process.version, cpus: cpus().length, loadavg: loadavg(), runsPerRow: runs, rows
  }, null, 2) + '\n')
  console.log('wrote bench/out/gossip-cost.json')
}

if (process.argv[2] === 'peer') {
  await peer()
} else {
  await main()
}
