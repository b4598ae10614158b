import { createServer } from 'node:net'
import type { AddressInfo } from 'node:net'

/** A loopback port nothing listens on any more (one the system just handed out and took back): an endpoint that refuses. */
export async function closedPort (): Promise<number> {
  const server = createServer()
  await new Promise<void>(resolve => { server.listen(0, '127.0.0.1', resolve) })
  const { port } = server.address() as AddressInfo
  await new Promise<void>(resolve => { server.close(() => { resolve() }) })
  return port
}
