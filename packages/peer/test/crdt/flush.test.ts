import { MemoryDatastore } from 'datastore-core'
import { generateKeyPair } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import * as Y from 'yjs'
import { describe, expect, it } from 'vitest'
import { createFlusher } from '../../src/crdt/flush.js'
import { rateLimiter } from '../../src/crdt/gossip-guard.js'
import { createMetrics } from '../../src/crdt/metrics.js'
import { DocPersistence } from '../../src/crdt/persistence.js'
import type { OpenDoc } from '../../src/crdt/open-doc.js'
import type { SyncOptions } from '../../src/crdt/doc-store-types.js'
import type { PeerId } from '@libp2p/interface'

async function peer (): Promise<PeerId> {
  return peerIdFromPrivateKey(await generateKeyPair('Ed25519'))
}

function openDoc (name: string): OpenDoc {
  const entry: OpenDoc = {
    name,
    topic: `topic/${name}`,
    doc: new Y.Doc(),
    persistence: new DocPersistence(new MemoryDatastore(), name),
    toPublish: [],
    toPersist: [],
    flushScheduled: false,
    chain: Promise.resolve(),
    dirtySinceCompaction: false,
    synced: new Set(),
    serving: new Map(),
    pendingPulls: new Map(),
    published: 0,
    sentTo: new Map(),
    rate: rateLimiter({ ratePerSecond: 100, burst: 100 }),
    onUpdate: () => {}
  }
  return entry
}

describe('flusher', () => {
  it('pushes an update over sync to each known subscriber gossip did not reach, and counts what it published', async () => {
    const [reached, unreached] = await Promise.all([peer(), peer()])
    const pushes: Array<{ peer: string, options: SyncOptions }> = []
    const entry = openDoc('jobmesh/job/x')
    const flusher = createFlusher({
      pubsub: {
        // gossipsub leaves out a subscriber it has no outbound stream to
        publish: async () => ({ recipients: [reached] }),
        getSubscribers: () => [reached, unreached]
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
    entry.doc.getMap('micro').set('0.0', 'x')
    flusher.scheduleFlush(entry, undefined)
    await entry.chain
    expect(entry.published).toBe(1)
    expect(pushes).toEqual([{ peer: unreached.toString(), options: { push: true, fresh: true, quiet: true } }])
  })
})
