import { createDocStore } from '../../src/crdt/index.js'
import { createNode } from '../../src/node/index.js'
import type { DocStore } from '../../src/crdt/index.js'
import type { JobmeshNode } from '../../src/node/index.js'
import type { Stoppable, TestPeer } from '@jobmesh/testkit'

export type { Stoppable }

/**
 * A node dialled to each of `peers`, with a doc store: how a registered attacker (or a job's creator, who may write
 * its job's docs) sits beside honest peers. Pushed on `extra`, which the test's afterEach stops.
 */
export async function attackerBeside (peers: TestPeer[], extra: Stoppable[]): Promise<{ node: JobmeshNode, docs: DocStore }> {
  const node = await createNode()
  const docs = createDocStore(node, { compactIntervalMs: 0 })
  extra.push({ stop: async () => { await docs.stop(); await node.stop() } })
  for (const p of peers) await node.libp2p.dial(p.node.libp2p.getMultiaddrs()[0], { signal: AbortSignal.timeout(10_000) })
  return { node, docs }
}
