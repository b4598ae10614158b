// The in-process rows of the coordination bench (bench/coordination.bench.js): n peers in this process, each a real
// libp2p node on loopback with its doc store and processor, and the failover row; the mesh's dial plan and the
// bench's clock, which the multi-process rows share.
import { jobsTopic } from '@jobmesh/peer/coord'
import { createNode } from '@jobmesh/peer/node'
import { createProcessor } from '@jobmesh/peer/processor'
import { createTrafficCounters } from '@jobmesh/peer/protocol'
import { heldDone, testExecutor, testJob, waitFor } from '@jobmesh/testkit'
import { countersSince } from './coordination-counters.js'
import { benchDocStore } from './coordination-docs.js'
import { RunTally, fields, writeTimeline } from './coordination-report.js'

/** How long one job of a row may take (ms). */
export const TIMEOUT_MS = 180_000

/** Wall-clock ms, comparable across the peer processes of one machine. */
export const now = () => performance.timeOrigin + performance.now()

/** libp2p refuses bursts of inbound connections from one host: orient the mesh so no node receives more than n / 2. */
export function dialPlan (n) {
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

/** Runs one job on `peers` fresh in-process peers. */
export async function runInProcess ({ peers: n, macroJobs, microJobsPerMacro, workMs }) {
  const peers = await startPeers(n, testExecutor({ workMs }))
  const total = macroJobs * microJobsPerMacro
  const tally = new RunTally()
  for (const [i, p] of peers.entries()) {
    p.processor.addEventListener('microjob:start', (evt) => {
      tally.start(i, `${evt.detail.macroIndex}.${evt.detail.index}`, now(), evt.detail.claimToStartMs)
    })
    p.processor.addEventListener('microjob:done', (evt) => { tally.done(i, `${evt.detail.macroIndex}.${evt.detail.index}`, now()) })
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
    await waitFor(() => tally.runs.size === total, { timeoutMs: 10_000, what: 'every MicroJob done' })
    const used = process.cpuUsage(cpu)
    cpuMs = (used.user + used.system) / 1000
    counted = peers.map((p, i) => countersSince(p.counters, countersAtStart[i]))
  } finally {
    await stopPeers(peers)
  }
  if (process.env.COORD_BENCH_TIMELINE != null) writeTimeline(`coordination-timeline-inproc-${n}.json`, { peers: n, workMs, announced, events: tally.timeline })
  return fields({
    peers: n,
    processes: false,
    microJobs: total,
    workMs,
    announced,
    tally,
    failovers: peers.reduce((a, p) => a + p.processor.metrics.failovers, 0),
    handoffs: peers.reduce((a, p) => a + p.processor.metrics.handoffs, 0),
    cpuMs,
    counters: counted
  })
}

/** A peer process of the multi-process rows, with a promise per awaited message type. */

/** The failover row: a queue owner killed abruptly once a quarter of the job is done (coordination.bench.js). */
export async function runFailover ({ peers: n, microJobs, workMs }) {
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
    const resultsOf = (p) => heldDone(p.docs, job.jobId, 1)
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
