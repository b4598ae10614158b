import { createServer } from 'node:http'
import { HttpListenError } from './errors.js'
import type { HttpAddress } from './address.js'
import type { Server } from 'node:http'

/**
 * An HTTP server listening on `address` and answering 503 until `startHttpServer` attaches the dashboard. A peer
 * takes its address first, before it registers on chain: a start refused for a busy port has then spent nothing.
 *
 * @throws HttpListenError when the address cannot be taken (in use, not this machine's, not allowed)
 */
export async function listenHttp (address: HttpAddress): Promise<Server> {
  // until the dashboard is attached (the peer is starting: chain, stores, network), a request is told so and let go:
  // left unanswered it hung for good, and so did the listener's close
  const server = createServer((_req, res) => {
    res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '2', connection: 'close' }).end('the peer is starting\n')
  })
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(address.port, address.host, () => {
        server.off('error', reject)
        resolve()
      })
    })
  } catch (err) {
    const e = err as NodeJS.ErrnoException
    const why = e.code === 'EADDRINUSE' ? 'the address is in use' : e.code === 'EADDRNOTAVAIL' ? 'the address is not one of this machine\'s' : e.code === 'EACCES' ? 'not allowed (a port below 1024?)' : e.message
    throw new HttpListenError(`cannot serve the dashboard (--http) on ${address.host}:${address.port}: ${why}`, { cause: err })
  }
  return server
}
