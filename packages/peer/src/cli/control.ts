import { createServer, request } from 'node:http'
import { connect } from 'node:net'
import { unlink } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { CONTROL_SOCKET, DEFAULT_STATUS_TIMEOUT_MS } from './constants.js'
import { DataDirInUseError, PeerNotRunningError, PeerStartingError } from './errors.js'
import type { Server } from 'node:http'

/** What a running peer answers on its control socket. */
export type StatusProvider = () => unknown

/** What a peer answers while `jobmesh start` has not made it yet (the chain, the stores, the network). */
export interface StartingReport {
  starting: {
    /** Its process. */
    pid: number
    /** When its start began, ms since the epoch. */
    since: number
  }
}

/** The answer of a peer that is still starting. */
export function startingReport (since: number): StartingReport {
  return { starting: { pid: process.pid, since } }
}

export interface ControlServer {
  path: string
  /** Stops answering (the socket file goes); idempotent. */
  close(): Promise<void>
}

/**
 * Serves `GET /status` as JSON on a Unix socket inside the data dir, so `jobmesh status` can ask the running peer.
 * A socket left behind by a killed peer is replaced; one that still answers means the data dir is in use.
 */
export async function startControlServer (dataDir: string, status: StatusProvider): Promise<ControlServer> {
  const path = join(dataDir, CONTROL_SOCKET)
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url !== '/status') {
      res.writeHead(404).end()
      return
    }
    Promise.resolve().then(status).then(value => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify(value, (_k, v: unknown) => typeof v === 'bigint' ? v.toString() : v))
    }, (err: Error) => {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(`${err.name}: ${err.message}`)
    })
  })
  try {
    await listen(server, path)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') {
      throw err
    }
    // a socket something still accepts on is a running peer's, however slowly it answers (its report reads the
    // chain): only one nothing listens on any more (a killed peer's) is replaced
    if (await accepts(path)) {
      throw new DataDirInUseError(`another jobmesh peer is running on ${dataDir}`)
    }
    await unlink(path)
    await listen(server, path)
  }
  let closing: Promise<void> | undefined
  return {
    path,
    close: async () => {
      closing ??= new Promise<void>(resolve => server.close(() => { resolve() }))
      await closing
    }
  }
}

async function listen (server: Server, path: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(path, () => {
      server.off('error', reject)
      resolve()
    })
  })
}

/**
 * Refuses a data dir whose control socket something accepts on (a running or starting peer), before a second start
 * reads the chain or opens anything. @throws DataDirInUseError
 */
export async function refuseRunningPeer (dataDir: string): Promise<void> {
  if (await accepts(join(dataDir, CONTROL_SOCKET))) throw new DataDirInUseError(`another jobmesh peer is running on ${dataDir}`)
}

/** Whether a process accepts connections on the Unix socket at `path` (within 1 s). */
async function accepts (path: string): Promise<boolean> {
  return await new Promise(resolve => {
    const socket = connect(path)
    const done = (yes: boolean): void => {
      socket.destroy()
      resolve(yes)
    }
    socket.setTimeout(1_000, () => { done(false) })
    socket.once('connect', () => { done(true) })
    socket.once('error', () => { done(false) })
  })
}

/**
 * Asks the peer behind the control socket for its status; `where` names the socket's place in a refusal (default
 * "there").
 *
 * @throws PeerNotRunningError when nothing answers there; PeerStartingError while the peer is still starting
 */
export async function fetchStatus (path: string, timeoutMs = DEFAULT_STATUS_TIMEOUT_MS, where = 'there'): Promise<unknown> {
  const status = await ask(path, timeoutMs, where)
  const starting = (status as Partial<StartingReport> | null)?.starting
  if (starting != null) {
    const seconds = Math.max(0, Math.round((Date.now() - starting.since) / 1000))
    throw new PeerStartingError(`the jobmesh peer on ${dirname(path)} (pid ${starting.pid}) is starting (for ${seconds} s: joining the chain and the network), not ready yet: ask again in a few seconds`)
  }
  return status
}

async function ask (path: string, timeoutMs: number, where: string): Promise<unknown> {
  return await new Promise((resolve, reject) => {
    const req = request({ socketPath: path, path: '/status', method: 'GET', timeout: timeoutMs }, res => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => {
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')))
        } catch (err) {
          reject(new PeerNotRunningError(`the peer answered with something that is not JSON: ${String(err)}`))
        }
      })
      res.on('error', reject)
    })
    req.on('timeout', () => { req.destroy(new PeerNotRunningError(`no answer from ${path} within ${timeoutMs} ms`)) })
    req.on('error', (err: NodeJS.ErrnoException) => {
      reject(err.name === 'PeerNotRunningError' ? err : new PeerNotRunningError(`no jobmesh peer is running ${where} (${err.code ?? err.message})`))
    })
    req.end()
  })
}
