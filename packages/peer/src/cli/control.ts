import { createServer, request } from 'node:http'
import { unlink } from 'node:fs/promises'
import { join } from 'node:path'
import { CONTROL_SOCKET, DEFAULT_STATUS_TIMEOUT_MS } from './constants.js'
import { DataDirInUseError, PeerNotRunningError } from './errors.js'
import type { Server } from 'node:http'

/** What a running peer answers on its control socket. */
export type StatusProvider = () => unknown

export interface ControlServer {
  path: string
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
    if (await answers(path)) {
      throw new DataDirInUseError(`another jobmesh peer is running on ${dataDir}`)
    }
    await unlink(path)
    await listen(server, path)
  }
  return {
    path,
    close: async () => {
      await new Promise<void>(resolve => server.close(() => { resolve() }))
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
 * Refuses a data dir whose peer answers on its control socket, before a second start opens its stores (whose lock
 * errors cannot say why). @throws DataDirInUseError
 */
export async function refuseRunningPeer (dataDir: string): Promise<void> {
  if (await answers(join(dataDir, CONTROL_SOCKET))) throw new DataDirInUseError(`another jobmesh peer is running on ${dataDir}`)
}

async function answers (path: string): Promise<boolean> {
  try {
    await fetchStatus(path, 1_000)
    return true
  } catch {
    return false
  }
}

/**
 * Asks the peer behind the control socket for its status; `where` names the socket's place in a refusal (default
 * "there").
 */
export async function fetchStatus (path: string, timeoutMs = DEFAULT_STATUS_TIMEOUT_MS, where = 'there'): Promise<unknown> {
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
