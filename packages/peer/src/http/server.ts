import { logger } from '@libp2p/logger'
import { dashboardAssets } from './assets.js'
import { httpUrl } from './address.js'
import { listenHttp } from './listen.js'
import { DEFAULT_PUSH_DEBOUNCE_MS, DEFAULT_PUSH_INTERVAL_MS, MAX_DESCRIBES, MAX_SSE_CLIENTS } from './constants.js'
import { refusal, SECURITY_HEADERS } from './request-guard.js'
import { SseClients } from './sse.js'
import type { HttpAddress } from './address.js'
import type { JobStory, NetworkObserver } from '../observe/index.js'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Registry } from 'prom-client'

const log = logger('jobmesh:http')

export interface HttpServerComponents {
  observer: NetworkObserver
  /** Prometheus registry served on `/metrics`. */
  registry: Registry
  describe(jobId: string, options: { signal: AbortSignal }): Promise<JobStory>
}

export interface HttpServerInit extends HttpAddress {
  /** The server listening on the address already ({@link listenHttp}); default: one made here. */
  server?: Server
  pushDebounceMs?: number
  pushIntervalMs?: number
}

/** The peer's HTTP listener: the dashboard, its live state (SSE), job stories and `/metrics`. */
export interface HttpServer {
  /** `http://host:port/` */
  readonly url: string
  close(): Promise<void>
}

const JOB_ID = /^\/api\/jobs\/(0x[0-9a-fA-F]{64})\/describe$/
/** A describe path whose job id is not one (`/api/jobs/<anything>/describe`): a 400 that says so, not a 404. */
const ANY_JOB = /^\/api\/jobs\/([^/]*)\/describe$/

function json (value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => typeof v === 'bigint' ? v.toString() : v)
}

/**
 * Starts the HTTP listener of a peer (`jobmesh start --http 127.0.0.1:<port>`):
 * `/` the dashboard, `/events` its state as Server-Sent Events, `/api/state`, `/api/jobs/<jobId>/describe`,
 * `/metrics` (Prometheus text).
 */
export async function startHttpServer (components: HttpServerComponents, init: HttpServerInit): Promise<HttpServer> {
  const { observer, registry } = components
  const assets = dashboardAssets()
  const sse = new SseClients()
  const controller = new AbortController()
  let pending: ReturnType<typeof setTimeout> | undefined
  const push = (): void => {
    pending = undefined
    if (sse.size > 0) sse.send('state', json(observer.state()))
  }
  const onChange = (): void => {
    if (sse.size > 0 && pending == null) pending = setTimeout(push, init.pushDebounceMs ?? DEFAULT_PUSH_DEBOUNCE_MS)
  }
  observer.addEventListener('change', onChange)
  const beat = setInterval(() => {
    if (sse.size === 0) return
    void observer.refreshChain().catch(() => {})
    push()
  }, init.pushIntervalMs ?? DEFAULT_PUSH_INTERVAL_MS)

  let describing = 0
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://localhost')
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value)
    const path = url.pathname
    // HEAD is GET without the body (Node's response sends none), for the page's files and /metrics (uptime checks,
    // `curl -I`); not for the live stream (it never ends) nor the API (chain reads for nothing)
    const live = path === '/events' || path.startsWith('/api/')
    if (req.method !== 'GET' && (req.method !== 'HEAD' || live)) {
      res.writeHead(405, { allow: live ? 'GET' : 'GET, HEAD' }).end()
      return
    }
    const why = refusal(req.headers, init.host, path)
    if (why != null) {
      res.writeHead(403, { 'content-type': 'text/plain' }).end(`forbidden: ${why}\n`)
      return
    }
    if (path === '/metrics') {
      // a scrape also starts a chain refresh (at most one per chainRefreshMs; not awaited): the per-job gauges leave the
      // jobs released or refunded since, at the next scrape, on a peer no dashboard page is open on
      void observer.refreshChain().catch(() => {})
      const body = await registry.metrics()
      res.writeHead(200, { 'content-type': registry.contentType }).end(body)
      return
    }
    if (path === '/events') {
      if (sse.size >= MAX_SSE_CLIENTS) {
        res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '5' }).end('too many live dashboards\n')
        return
      }
      sse.add(res)
      sse.sendTo(res, 'state', json(observer.state()))
      void observer.refreshChain().catch(() => {})
      return
    }
    if (path === '/api/state') {
      await observer.refreshChain()
      res.writeHead(200, { 'content-type': 'application/json' }).end(json(observer.state()))
      return
    }
    const job = JOB_ID.exec(path)
    if (job != null) {
      if (describing >= MAX_DESCRIBES) {
        res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '1' }).end('busy telling other stories\n')
        return
      }
      describing++
      try {
        const story = await components.describe(job[1], { signal: controller.signal })
        // a job neither on chain nor announced to the peers this node sees: not found (the story still says so); with
        // the chain unread that is not known
        const status = story.phase !== 'unknown' ? 200 : story.chainUnread === true ? 503 : 404
        res.writeHead(status, { 'content-type': 'application/json' }).end(json(story))
      } finally {
        describing--
      }
      return
    }
    const notAnId = ANY_JOB.exec(path)
    if (notAnId != null) {
      const error = { name: 'InvalidJobIdError', message: `not a job id: ${notAnId[1].slice(0, 80)} (a job id is 0x and 64 hex digits)` }
      res.writeHead(400, { 'content-type': 'application/json' }).end(json({ error }))
      return
    }
    const file = await assets(path === '/' ? 'index.html' : path.slice(1))
    if (file == null) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n')
      return
    }
    res.writeHead(200, { 'content-type': file.type, 'cache-control': 'no-cache' }).end(file.body)
  }

  let server: Server
  try {
    server = init.server ?? await listenHttp(init)
  } catch (err) {
    clearInterval(beat)
    observer.removeEventListener('change', onChange)
    throw err
  }
  // in place of the listener's answer while the peer started (listenHttp)
  server.removeAllListeners('request')
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((err: Error) => {
      log.error('%s %s failed: %e', req.method, req.url, err)
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' })
      res.end(`${err.name}: ${err.message}\n`)
    })
  })
  const port = (server.address() as AddressInfo).port
  const url = httpUrl(init.host, port)
  log('listening on %s', url)
  return {
    url,
    async close () {
      controller.abort()
      clearInterval(beat)
      if (pending != null) clearTimeout(pending)
      observer.removeEventListener('change', onChange)
      sse.closeAll()
      server.closeAllConnections()
      await new Promise<void>(resolve => server.close(() => { resolve() }))
    }
  }
}
