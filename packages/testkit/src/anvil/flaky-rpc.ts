import { createServer } from 'node:http'
import { timeoutSignal } from '@jobmesh/contracts'
import type { AddressInfo } from 'node:net'

/** A JSON-RPC call as the proxy sees it. */
export interface RpcCall { method: string, params?: unknown[] }

/** A JSON-RPC proxy in front of a chain that fails some of the requests calling one method (or matching a test). */
export interface FlakyRpc {
  readonly url: string
  /** The next `n` HTTP requests that call the method (alone or in a batch) get a 503 instead of an answer. */
  failNext(n: number): void
  /** How many requests it has failed so far. */
  failed(): number
  stop(): Promise<void>
}

/**
 * Starts a {@link FlakyRpc} on a free loopback port, forwarding every other request to `target`. `options.onForward`
 * sees each call it forwards, in order (a test that acts at the n-th transaction).
 */
export async function flakyRpc (target: string, method: string | ((call: RpcCall) => boolean),
  options: { onForward?(call: RpcCall): void } = {}): Promise<FlakyRpc> {
  const matches = typeof method === 'string' ? (c: { method: string }) => c.method === method : method
  let toFail = 0
  let failed = 0
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString()
      const calls = [JSON.parse(body) as RpcCall | RpcCall[]].flat()
      if (toFail > 0 && calls.some(matches)) {
        toFail--
        failed++
        res.writeHead(503).end('unavailable')
        return
      }
      for (const c of calls) options.onForward?.(c)
      fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: timeoutSignal(10_000) })
        .then(async r => { res.writeHead(r.status, { 'content-type': 'application/json' }).end(await r.text()) })
        .catch(() => { res.writeHead(502).end('bad gateway') })
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    failNext: (n) => { toFail = n },
    failed: () => failed,
    stop: async () => { server.closeAllConnections(); await new Promise<void>(resolve => server.close(() => resolve())) }
  }
}
