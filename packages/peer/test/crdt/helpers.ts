import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as Y from 'yjs'
import { createDocStore } from '../../src/crdt/index.js'
import { createNode } from '../../src/node/index.js'
import type { DocStore, DocStoreInit } from '../../src/crdt/index.js'
import type { JobmeshNode } from '../../src/node/index.js'

export interface Peer {
  node: JobmeshNode
  docs: DocStore
  dataDir?: string
}

/** Tracks everything a test starts so afterEach can stop it. */
export class Harness {
  readonly peers: Peer[] = []
  private readonly dirs: string[] = []

  async tempDir (): Promise<string> {
    const d = await mkdtemp(join(tmpdir(), 'jobmesh-crdt-'))
    this.dirs.push(d)
    return d
  }

  async start (opts: { dataDir?: string, docs?: DocStoreInit } = {}): Promise<Peer> {
    const node = await createNode({ dataDir: opts.dataDir })
    const docs = createDocStore(node, { compactIntervalMs: 0, ...opts.docs })
    const peer = { node, docs, dataDir: opts.dataDir }
    this.peers.push(peer)
    return peer
  }

  async stopPeer (peer: Peer): Promise<void> {
    const i = this.peers.indexOf(peer)
    if (i >= 0) this.peers.splice(i, 1)
    await peer.docs.stop()
    await peer.node.stop()
  }

  async cleanup (): Promise<void> {
    await Promise.all(this.peers.splice(0).map(async p => { await p.docs.stop(); await p.node.stop() }))
    await Promise.all(this.dirs.splice(0).map(async d => rm(d, { recursive: true, force: true })))
  }
}

/** Dials b from a and waits until the connection is up. */
export async function connect (a: Peer, b: Peer): Promise<void> {
  await a.node.libp2p.dial(b.node.libp2p.getMultiaddrs()[0], { signal: AbortSignal.timeout(10_000) })
}

/** What `write` adds to a copy of `base`: the update a remote peer would send. */
export function updateOf (base: Y.Doc, write: (doc: Y.Doc) => void): Uint8Array {
  const copy = new Y.Doc()
  Y.applyUpdate(copy, Y.encodeStateAsUpdate(base))
  const before = Y.encodeStateVector(copy)
  write(copy)
  return Y.encodeStateAsUpdate(copy, before)
}
