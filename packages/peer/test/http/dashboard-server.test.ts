import { request } from 'node:http'
import parsePrometheusTextFormat from 'parse-prometheus-text-format'
import { Registry } from 'prom-client'
import { afterEach, describe, expect, it } from 'vitest'
import { jobsTopic } from '../../src/coord/index.js'
import { startHttpServer } from '../../src/http/index.js'
import { EventLog, METRIC_NAMES, NetworkObserver, attachPeerEvents, registerPeerMetrics } from '../../src/observe/index.js'
import type { HttpServer, NetworkState } from '../../src/index.js'
import { startPeers, stopPeers, testExecutor, testJob, waitFor, waitForMesh } from '@jobmesh/testkit'
import type { TestPeer } from '@jobmesh/testkit'

let peers: TestPeer[] = []
const cleanup: Array<() => Promise<void> | void> = []

afterEach(async () => {
  for (const c of cleanup.reverse()) await c()
  cleanup.length = 0
  await stopPeers(peers)
  peers = []
})

async function get (url: string): Promise<{ status: number, type: string, body: string }> {
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000) })
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: await res.text() }
}

/** Reads Server-Sent Events from `url` until `until` accepts one `state` event. */
async function nextState (url: string, until: (s: NetworkState) => boolean, timeoutMs = 20_000): Promise<NetworkState> {
  return await new Promise((resolve, reject) => {
    const req = request(url, res => {
      let buffer = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        buffer += chunk
        let end
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          const data = block.split('\n').find(l => l.startsWith('data: '))
          if (!block.includes('event: state') || data == null) continue
          const state = JSON.parse(data.slice(6)) as NetworkState
          if (until(state)) {
            req.destroy()
            resolve(state)
          }
        }
      })
    })
    req.setTimeout(timeoutMs, () => { req.destroy(new Error('no matching state event in time')) })
    req.on('error', reject)
    req.end()
  })
}

describe('the HTTP listener of a peer', () => {
  it('serves the dashboard, live state over SSE with per-MacroJob progress and owners, and /metrics', async () => {
    peers = await startPeers(2, { executor: testExecutor({ workMs: 5 }) })
    const [a, b] = peers
    const registry = new Registry()
    const events = new EventLog()
    cleanup.push(attachPeerEvents({ libp2p: a.node.libp2p, processor: a.processor }, events))
    const observer = new NetworkObserver({ node: a.node, docs: a.docs, events, processor: a.processor }, { vramGb: 8 })
    await observer.start()
    cleanup.push(() => { observer.stop() })
    cleanup.push(registerPeerMetrics(registry, { processor: a.processor, docs: a.docs, jobs: () => observer.jobCounts() }))
    const server: HttpServer = await startHttpServer({
      observer,
      registry,
      describe: async () => { throw new Error('not used') }
    }, { host: '127.0.0.1', port: 0, pushIntervalMs: 500 })
    cleanup.push(async () => { await server.close() })
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/)

    const page = await get(server.url)
    expect(page.status).toBe(200)
    expect(page.type).toContain('text/html')
    expect(page.body).toContain('<script type="module" src="app.js">')
    expect((await get(server.url + 'render.js')).type).toContain('text/javascript')
    expect((await get(server.url + '../package.json')).status).toBe(404)

    const bDone: string[] = []
    b.processor.addEventListener('microjob:done', () => { bDone.push('x') })
    await Promise.all(peers.map(async p => p.processor.start()))
    await waitForMesh(peers, jobsTopic())
    const job = testJob(2, 6)
    const total = 12
    await a.processor.announceJob(job.spec, job.jobId, job.specCid)
    const state = await nextState(server.url + 'events', s => s.jobs[0]?.progress.done === total)
    expect(state.self.peerId).toBe(a.id)
    expect(state.peers.map(p => p.peerId)).toEqual([b.id])
    expect(state.peers[0].connected).toBe(true)
    const card = state.jobs[0]
    expect(card.jobId).toBe(job.jobId)
    expect(card.progress.macros.map(m => [m.done, m.size])).toEqual([[6, 6], [6, 6]])
    expect(card.progress.macros.every(m => m.owner === a.id || m.owner === b.id)).toBe(true)
    expect(card.progress.moves.length).toBeGreaterThanOrEqual(1)
    expect(card.story.phase).toBe('processed')
    expect(state.events.some(e => e.kind === 'ownership' || e.kind === 'job:complete')).toBe(true)

    type Family = { name: string, type: string, metrics: Array<{ value: string, labels?: Record<string, string> }> }
    let metrics = await get(server.url + 'metrics')
    expect(metrics.type).toContain('text/plain')
    let families = parsePrometheusTextFormat(metrics.body) as Family[]
    const family = (name: string): Family | undefined => families.find(f => f.name === name)
    expect(family(METRIC_NAMES.jobMicroJobsDone)?.metrics).toEqual([{ labels: { job: job.jobId }, value: String(total) }])
    expect(family(METRIC_NAMES.jobMicroJobs)?.metrics[0].value).toBe(String(total))
    // a counts the MicroJobs it ran, b the others: once both are counted they add up to the job (read again each time)
    const ranByA = (): number => Number(family(METRIC_NAMES.microJobsDone)?.metrics[0]?.value ?? 0)
    await waitFor(async () => {
      metrics = await get(server.url + 'metrics')
      families = parsePrometheusTextFormat(metrics.body) as Family[]
      return ranByA() + bDone.length === total
    }, { timeoutMs: 5_000, what: 'every MicroJob counted by the peer that ran it' })
    expect(family(METRIC_NAMES.dropped)?.metrics.map(m => m.labels?.reason).sort()).toEqual(['crdt_rejected', 'forged', 'invalid_record', 'malformed', 'oversized', 'stale', 'unadmitted'])
    expect(family(METRIC_NAMES.crdtBytes)?.type).toBe('COUNTER')
    expect(family(METRIC_NAMES.handoffs)?.type).toBe('COUNTER')
    // exported with a count (a may or may not have handed a queue off in this run)
    expect(family(METRIC_NAMES.handoffs)?.metrics[0]?.value).toMatch(/^\d+$/)
    // every queue turn was answered
    expect(family(METRIC_NAMES.turnsUnanswered)?.metrics[0].value).toBe('0')
  })
})
