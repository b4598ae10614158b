import { request } from 'node:http'
import parsePrometheusTextFormat from 'parse-prometheus-text-format'
import { Registry } from 'prom-client'
import { afterEach, describe, expect, it } from 'vitest'
import { jobsTopic } from '../../src/coord/index.js'
import { startHttpServer } from '../../src/http/index.js'
import { EventLog, METRIC_NAMES, NetworkObserver, attachPeerEvents, registerPeerMetrics } from '../../src/observe/index.js'
import { MAX_DESCRIBES } from '../../src/http/constants.js'
import type { HttpServer, NetworkState } from '../../src/index.js'
import type { NetworkObserver as Observer } from '../../src/observe/index.js'
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

const UNKNOWN_JOB = `0x${'00'.repeat(32)}`
const UNREAD_JOB = `0x${'01'.repeat(32)}`

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
    expect(family(METRIC_NAMES.dropped)?.metrics.map(m => m.labels?.reason).sort()).toEqual(['crdt_rejected', 'forged', 'invalid_record', 'malformed', 'oversized', 'replayed', 'stale', 'unadmitted'])
    expect(family(METRIC_NAMES.crdtBytes)?.type).toBe('COUNTER')
    expect(family(METRIC_NAMES.handoffs)?.type).toBe('COUNTER')
    // exported with a count (a may or may not have handed a queue off in this run)
    expect(family(METRIC_NAMES.handoffs)?.metrics[0]?.value).toMatch(/^\d+$/)
    // every queue turn was answered
    expect(family(METRIC_NAMES.turnsUnanswered)?.metrics[0].value).toBe('0')
  })

  it('answers only loopback Host names on loopback, keeps the API from other sites\' pages, sends its security headers, bounds stories', async () => {
    // a stand-in observer: this test is about the listener, not the state
    const observer = Object.assign(new EventTarget(), { state: () => ({}), refreshChain: async () => {} }) as unknown as Observer
    let release: () => void = () => {}
    const held = new Promise<void>(resolve => { release = resolve })
    let started = 0
    const server = await startHttpServer({
      observer,
      registry: new Registry(),
      describe: async (jobId) => {
        if (jobId === UNKNOWN_JOB) return { jobId, phase: 'unknown', lines: [], waitingFor: 'nothing known' } as never
        if (jobId === UNREAD_JOB) return { jobId, phase: 'unknown', lines: [], waitingFor: 'not known', chainUnread: true } as never
        started++
        await held
        return { jobId: '0x', phase: 'open', lines: [] } as never
      }
    }, { host: '127.0.0.1', port: 0 })
    cleanup.push(async () => { release(); await server.close() })
    const { port } = new URL(server.url)
    // a second listener on the same address says which flag's address is in use (it said `listen EADDRINUSE` only)
    const taken = await startHttpServer({ observer, registry: new Registry(), describe: async () => { throw new Error('not used') } },
      { host: '127.0.0.1', port: Number(port) }).catch((e: unknown) => e as Error)
    expect(taken.name).toBe('HttpListenError')
    expect(taken.message).toBe(`cannot serve the dashboard (--http) on 127.0.0.1:${port}: the address is in use`)
    expect((taken.cause as { code?: string }).code).toBe('EADDRINUSE')
    const ask = async (path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<{ status: number, headers: Record<string, unknown>, body: string }> =>
      await new Promise((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path, method, headers, signal: AbortSignal.timeout(10_000) }, res => {
          let body = ''
          res.setEncoding('utf8')
          res.on('data', (c: string) => { body += c })
          res.on('end', () => { resolve({ status: res.statusCode ?? 0, headers: res.headers, body }) })
        })
        req.on('error', reject)
        req.end()
      })

    // DNS rebinding: another site's name pointed at 127.0.0.1
    const rebound = await ask('/api/state', { host: `evil.example:${port}` })
    expect(rebound.status).toBe(403)
    expect(rebound.body).toBe('forbidden: this listener answers only on a loopback host name\n')
    expect((await ask('/', { host: `attacker.test:${port}` })).status).toBe(403)
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]) expect((await ask('/api/state', { host })).status).toBe(200)
    // another site's script may not read the API; a link to the page is fine; a scraper sends no Sec-Fetch-Site
    expect((await ask('/api/state', { 'sec-fetch-site': 'cross-site' })).status).toBe(403)
    expect((await ask('/metrics', { 'sec-fetch-site': 'same-site' })).status).toBe(403)
    expect((await ask('/', { 'sec-fetch-site': 'cross-site' })).status).toBe(200)
    expect((await ask('/api/state', { 'sec-fetch-site': 'same-origin' })).status).toBe(200)
    expect((await ask('/metrics')).status).toBe(200)
    // HEAD is a GET without its body (an uptime check, curl -I); anything else is refused, naming both
    const head = await ask('/', {}, 'HEAD')
    expect([head.status, head.body, head.headers['content-type']]).toEqual([200, '', 'text/html; charset=utf-8'])
    const post = await ask('/', {}, 'POST')
    expect([post.status, post.headers.allow]).toEqual([405, 'GET, HEAD'])
    // not of the live stream (it would never end, and hold a dashboard's slot) nor of the API (chain reads for nothing)
    for (const path of ['/events', '/api/state']) expect(await ask(path, {}, 'HEAD')).toMatchObject({ status: 405, headers: { allow: 'GET' } })

    // every answer carries the security headers, an error too; a name of Object.prototype is no file
    for (const path of ['/', '/app.js', '/nowhere', '/constructor', '/__proto__']) {
      const r = await ask(path)
      expect(r.headers['x-content-type-options']).toBe('nosniff')
      expect(r.headers['content-security-policy']).toMatch(/^default-src 'self';.*frame-ancestors 'none'/)
      if (path !== '/' && path !== '/app.js') expect(r.status).toBe(404)
    }

    // stories are chain reads: MAX_DESCRIBES at once, the next answered 503 at once
    const story = `/api/jobs/0x${'ab'.repeat(32)}/describe`
    const pending = Array.from({ length: MAX_DESCRIBES }, async () => await ask(story))
    await waitFor(() => started === MAX_DESCRIBES, { what: 'the stories to start' })
    const busy = await ask(story)
    expect(busy.status).toBe(503)
    expect(busy.headers['retry-after']).toBe('1')
    release()
    for (const r of await Promise.all(pending)) expect(r.status).toBe(200)
    expect((await ask(story)).status).toBe(200)
    // a job nobody knows: 404, with its story (the CLI's describe says JobNotFoundError)
    const unknown = await ask(`/api/jobs/${UNKNOWN_JOB}/describe`)
    expect(unknown.status).toBe(404)
    expect(JSON.parse(unknown.body)).toMatchObject({ phase: 'unknown' })
    // with the chain unreadable that is not known: 503, not 404
    expect((await ask(`/api/jobs/${UNREAD_JOB}/describe`)).status).toBe(503)
    // a path with something that is not a job id: 400, saying so (it was a bare 404, as for an unknown path)
    for (const bad of ['0x12', 'nope', '']) {
      const r = await ask(`/api/jobs/${bad}/describe`)
      expect(r.status).toBe(400)
      expect(JSON.parse(r.body)).toMatchObject({ error: { name: 'InvalidJobIdError' } })
    }
  })
})
