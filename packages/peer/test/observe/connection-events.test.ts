import { waitFor } from '@jobmesh/testkit'
import { afterEach, describe, expect, it } from 'vitest'
import { createNode } from '../../src/node/index.js'
import { EventLog, attachPeerEvents } from '../../src/observe/index.js'
import type { JobmeshNode } from '../../src/node/index.js'

const nodes: JobmeshNode[] = []
const detach: Array<() => void> = []

afterEach(async () => {
  for (const d of detach.splice(0)) d()
  await Promise.all(nodes.splice(0).map(async n => { await n.stop() }))
})

async function node (role: 'peer' | 'client'): Promise<JobmeshNode> {
  const n = await createNode({ role, listen: ['/ip4/127.0.0.1/tcp/0'] })
  nodes.push(n)
  return n
}

describe('a peer\'s connection lines', () => {
  it('name peers that connect and go, not the DApp clients that come and go with every jobmesh-dapp call', async () => {
    const peer = await node('peer')
    const log = new EventLog()
    detach.push(attachPeerEvents({ libp2p: peer.libp2p }, log))
    const lines = (): string[] => log.recent().filter(e => e.kind === 'peer:connect' || e.kind === 'peer:disconnect').map(e => e.text)

    // a client (the SDK's node) connects, is identified, and goes
    const agents = new Map<string, string | undefined>()
    peer.libp2p.addEventListener('peer:identify', (evt) => { agents.set(evt.detail.peerId.toString(), evt.detail.agentVersion) })
    const client = await node('client')
    await client.libp2p.dial(peer.libp2p.getMultiaddrs()[0])
    await waitFor(() => agents.has(client.peerId.toString()), { what: 'the client identified', timeoutMs: 10_000 })
    expect(agents.get(client.peerId.toString())).toBe('jobmesh-client')
    await client.libp2p.hangUp(peer.libp2p.peerId)
    await waitFor(() => peer.libp2p.getConnections(client.peerId).length === 0, { what: 'the client gone', timeoutMs: 10_000 })

    // another peer connects and goes: one line each
    const other = await node('peer')
    await other.libp2p.dial(peer.libp2p.getMultiaddrs()[0])
    await waitFor(() => lines().length === 1, { what: 'the connect line', timeoutMs: 10_000 })
    await other.stop()
    await waitFor(() => lines().length === 2, { what: 'the disconnect line', timeoutMs: 10_000 })
    const id = other.peerId.toString()
    const short = `${id.slice(0, 8)}…${id.slice(-4)}`
    expect(lines()).toEqual([`connected to ${short}`, `disconnected from ${short}`])
  })
})
