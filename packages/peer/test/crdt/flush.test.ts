import { MemoryDatastore } from 'datastore-core'
import { generateKeyPair } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import * as Y from 'yjs'
import { describe, expect, it } from 'vitest'
import { createFlusher } from '../../src/crdt/flush.js'
import { rateLimiter } from '../../src/crdt/gossip-guard.js'
import { createMetrics } from '../../src/crdt/metrics.js'
import { DocPersistence } from '../../src/crdt/persistence.js'
import { openDocEntry } from '../../src/crdt/open-doc.js'
import type { OpenDoc } from '../../src/crdt/open-doc.js'
import type { SyncOptions } from '../../src/crdt/doc-store-types.js'
import type { PeerId } from '@libp2p/interface'

async function peer (): Promise<PeerId> {
  return peerIdFromPrivateKey(await generateKeyPair('Ed25519'))
}

function openDoc (name: string): OpenDoc {
  return openDocEntry({
    name,
    topic: `topic/${name}`,
    doc: new Y.Doc(),
    persistence: new DocPersistence(new MemoryDatastore(), name),
    published: 0,
    rate: rateLimiter({ ratePerSecond: 100, burst: 100 }),
    onUpdate: () => {}
  })
}

interface Published { floodPublish?: boolean }

/** A flusher over a pubsub that reaches `reached` of the doc topic's `subscribers`, with a mesh of `mesh` peers. */
function flusherOf (entry: OpenDoc, pubsub: { reached: PeerId[], subscribers: PeerId[], mesh: string[] }): { published: Published[], pushes: Array<{ peer: string, options: SyncOptions }> } {
  const published: Published[] = []
  const pushes: Array<{ peer: string, options: SyncOptions }> = []
  const flusher = createFlusher({
    pubsub: {
      publish: async (_topic: string, _data: Uint8Array, options?: Published) => {
        published.push(options ?? {})
        return { recipients: pubsub.reached }
      },
      getSubscribers: () => pubsub.subscribers,
      getMeshPeers: () => pubsub.mesh
    },
    metrics: createMetrics(),
    docs: new Map([[entry.name, entry]]),
    maxUpdateBytes: 64 * 1024,
    compactEvery: 1_000,
    sync: async (_name: string, p: PeerId, options: SyncOptions) => {
      pushes.push({ peer: p.toString(), options })
      return { received: 0, sent: 0 }
    }
  })
  entry.onUpdate = (update, origin) => { flusher.onDocUpdate(entry, update, origin) }
  entry.doc.on('update', entry.onUpdate)
  return { published, pushes }
}

describe('flusher', () => {
  it('before the mesh forms: floods an update, and pushes it over sync to each subscriber gossip did not reach', async () => {
    const [reached, unreached] = await Promise.all([peer(), peer()])
    const entry = openDoc('jobmesh/job/x')
    const { published, pushes } = flusherOf(entry, { reached: [reached], subscribers: [reached, unreached], mesh: [reached.toString()] })
    entry.doc.getMap('micro').set('0.0', 'x')
    await waitForFlush(entry)
    expect(entry.published).toBe(1)
    expect(published).toEqual([{ floodPublish: true }])
    expect(pushes).toEqual([{ peer: unreached.toString(), options: { push: true, fresh: true, quiet: true } }])
  })

  it('once the mesh has formed: publishes to the mesh, whose forwarding reaches the other subscribers', async () => {
    const peers = await Promise.all([peer(), peer(), peer(), peer()])
    const entry = openDoc('jobmesh/job/y')
    const mesh = peers.slice(0, 2)
    const { published, pushes } = flusherOf(entry, { reached: mesh, subscribers: peers, mesh: mesh.map(String) })
    entry.doc.getMap('micro').set('0.0', 'y')
    await waitForFlush(entry)
    expect(published).toEqual([{ floodPublish: false }])
    expect(pushes).toEqual([])
  })
})

/** The flush runs on the next macrotask after a write (setImmediate), then on the doc's chain. */
async function waitForFlush (entry: OpenDoc): Promise<void> {
  await new Promise(resolve => setImmediate(resolve))
  await entry.chain
}
