#!/usr/bin/env node
// One peer of the multi-process coordination bench, in its own OS process: the same peer code as `jobmesh start`
// (createNode + createDocStore with the CRDT ownership guard + createProcessor with production defaults), with a timer executor standing for
// remote compute and traffic counters on the doc store and the processor. Started by coordination.bench.js with an
// IPC channel; not useful on its own.
//
// Parent -> child: { type: 'dial', addrs }, { type: 'mesh', peers }, { type: 'announce', job }, { type: 'report' },
//                  { type: 'stop' }
// Child -> parent: { type: 'ready', peerId, addr }, { type: 'dialed' }, { type: 'meshed' }, { type: 'start' | 'done',
//                  key, at, claimToStartMs }, { type: 'ownership', macroIndex, epoch, at }, { type: 'complete', at },
//                  { type: 'report', counters, metrics, syncs, cpu, rpcs }, { type: 'error', message }
// Times are wall-clock ms (performance.timeOrigin + performance.now()), comparable across processes on one machine.
import '@jobmesh/peer/polyfill'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { jobsTopic } from '@jobmesh/peer/coord'
import { createNode } from '@jobmesh/peer/node'
import { createProcessor } from '@jobmesh/peer/processor'
import { testExecutor, waitFor } from '@jobmesh/testkit'
import { createTrafficCounters, parseJobSpec } from '@jobmesh/peer/protocol'
import { peerIdFromString } from '@libp2p/peer-id'
import { multiaddr } from '@multiformats/multiaddr'
import { countersSince } from './coordination-counters.js'
import { countGossipRpcs } from './gossip-rpcs.js'
import { benchDocStore } from './coordination-docs.js'

const workMs = Number(process.env.COORD_PEER_WORK_MS ?? '0')
const now = () => performance.timeOrigin + performance.now()
/** How often a peer process reports its CPU for the timeline (ms). */
const CPU_SAMPLE_MS = 250
const send = (msg) => { process.send?.(msg) }

process.on('uncaughtException', (err) => {
  // a dial in flight while the mesh shuts down can fail after its caller gave up: not a peer failure
  if (err?.code === 'ECONNRESET' || err?.code === 'ECONNREFUSED' || err?.code === 'EPIPE') return
  send({ type: 'error', message: String(err?.stack ?? err) })
  process.exit(1)
})

process.on('warning', (w) => { send({ type: 'warning', message: `${w.name}: ${w.message}` }) })

const counters = createTrafficCounters()
const node = await createNode({ listen: ['/ip4/127.0.0.1/tcp/0'], ...(process.env.COORD_BENCH_GOSSIP != null ? { gossipsub: JSON.parse(process.env.COORD_BENCH_GOSSIP) } : {}) })
const docs = benchDocStore(node, counters)
const rpcs = countGossipRpcs(node.libp2p.services.pubsub)
const processor = createProcessor({ ...node, docs, counters }, {
  executor: testExecutor({ workMs }),
  hardware: { gpuModel: 'cpu', vramGb: 8 }
})
/**
 * What the report counts from: this process's CPU, its traffic counters and its doc store's sync exchanges when the
 * mesh formed (or the process went quiet, or a warm-up job ended), so that the report holds the job's only.
 */
function baseline () {
  return { cpu: process.cpuUsage(), counters: structuredClone(counters), docMetrics: { ...docs.metrics }, rpcs: { ...rpcs } }
}
let atStart = baseline()
/** The addresses this peer dials (the bench's dial plan). */
let planned = []

processor.addEventListener('microjob:start', (evt) => {
  send({ type: 'start', key: `${evt.detail.macroIndex}.${evt.detail.index}`, at: now(), claimToStartMs: evt.detail.claimToStartMs })
})
processor.addEventListener('microjob:done', (evt) => {
  send({ type: 'done', key: `${evt.detail.macroIndex}.${evt.detail.index}`, at: now() })
})
processor.addEventListener('ownership', (evt) => {
  send({ type: 'ownership', macroIndex: evt.detail.macroIndex, epoch: evt.detail.epoch, term: evt.detail.term, at: now() })
})
processor.addEventListener('job:complete', () => { send({ type: 'complete', at: now() }) })
// COORD_BENCH_TIMELINE: this process's CPU every 250 ms, for the timeline (where in a job the CPU goes)
if (process.env.COORD_BENCH_TIMELINE != null) {
  let last = process.cpuUsage()
  setInterval(() => {
    const used = process.cpuUsage(last)
    last = process.cpuUsage()
    send({ type: 'cpu', at: now(), ms: (used.user + used.system) / 1000 })
  }, CPU_SAMPLE_MS).unref()
}

async function stop () {
  await processor.stop().catch(() => {})
  await docs.stop().catch(() => {})
  await node.stop().catch(() => {})
  process.exit(0)
}

process.on('message', (msg) => {
  void (async () => {
    switch (msg.type) {
      case 'dial':
        planned = msg.addrs
        for (const addr of msg.addrs) {
          await node.libp2p.dial(multiaddr(addr), { signal: AbortSignal.timeout(10_000) })
        }
        send({ type: 'dialed' })
        return
      case 'mesh': {
        await processor.start()
        // a connection refused or dropped under load (libp2p limits inbound dials per host) is dialled again; a
        // gossipsub stream that failed to open under load is the node's own repair (node/gossip-repair.ts)
        const redial = setInterval(() => {
          for (const addr of planned) {
            const id = addr.split('/p2p/')[1]
            if (id != null && node.libp2p.getConnections(peerIdFromString(id)).length > 0) continue
            node.libp2p.dial(multiaddr(addr), { signal: AbortSignal.timeout(10_000) }).catch(() => {})
          }
        }, 5_000)
        try {
          await waitFor(() => node.pubsub.getSubscribers(jobsTopic()).length >= msg.peers - 1, { timeoutMs: 90_000, what: 'the /jobs mesh' })
        } catch (err) {
          err.message += ` (${node.libp2p.getPeers().length} peers connected, ${node.pubsub.getSubscribers(jobsTopic()).length} /jobs subscribers seen of ${msg.peers - 1})`
          throw err
        } finally {
          clearInterval(redial)
        }
        // CPU from here on is the job's (startup and dialling are not coordination)
        atStart = baseline()
        send({ type: 'meshed' })
        return
      }
      case 'announce': {
        const spec = parseJobSpec(msg.job.spec)
        await processor.announceJob(spec, msg.job.jobId, msg.job.specCid)
        return
      }
      case 'quiet': {
        // waits until this process used less than msg.msPerSecond of CPU over the last second (or msg.timeoutMs),
        // then counts the job's CPU and traffic from there
        const started = now()
        let last
        let timedOut = false
        await waitFor(() => {
          const used = last == null ? undefined : process.cpuUsage(last)
          last = process.cpuUsage()
          return used != null && (used.user + used.system) / 1000 < msg.msPerSecond
        }, { timeoutMs: msg.timeoutMs, intervalMs: 1_000, what: 'a quiet process' }).catch(() => { timedOut = true })
        atStart = baseline()
        send({ type: 'quiet', waitedMs: now() - started, timedOut })
        return
      }
      case 'cpu-mark': {
        // the bench marks the job's steady part (every peer started .. most MicroJobs done): this process's CPU now
        const used = process.cpuUsage()
        send({ type: 'cpu-mark', mark: msg.mark, ms: (used.user + used.system) / 1000 })
        return
      }
      case 'rebase':
        // a warm-up job ran: count from here
        atStart = baseline()
        send({ type: 'rebased' })
        return
      case 'report':
        // a CPU profile's sample times are this clock's (µs): the mark places them on the bench's wall clock
        if (process.env.COORD_BENCH_CPU_PROF != null) writeFileSync(join(process.env.COORD_BENCH_CPU_PROF, `marks-${process.pid}.json`), JSON.stringify({ wall: now(), hrUs: Number(process.hrtime.bigint() / 1000n) }))
        send({
          type: 'report',
          counters: countersSince(counters, atStart.counters),
          metrics: processor.metrics,
          syncs: { completed: docs.metrics.syncCompleted - atStart.docMetrics.syncCompleted, bytesIn: docs.metrics.syncBytesIn - atStart.docMetrics.syncBytesIn },
          cpu: process.cpuUsage(atStart.cpu),
          rpcs: countersSince(rpcs, atStart.rpcs)
        })
        return
      case 'stop':
        await stop()
    }
  })().catch((err) => {
    send({ type: 'error', message: String(err?.stack ?? err) })
  })
})

send({ type: 'ready', peerId: node.peerId.toString(), addr: node.libp2p.getMultiaddrs()[0].toString() })
