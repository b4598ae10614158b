import { startChain } from '@jobmesh/testkit/anvil'
import { waitFor } from '@jobmesh/testkit'
import { afterEach, describe, expect, it } from 'vitest'
import { coordGuards, INDEX_JOBS_MAP } from '../../src/coord/index.js'
import { createDocStore, INDEX_DOC } from '../../src/crdt/index.js'
import { announceJob } from '../../src/jobs/index.js'
import { createNode } from '../../src/node/index.js'
import { DEFAULT_PRICING } from '../../src/protocol/index.js'
import { chainPeer, fundJob } from '../settlement/funded-job.js'
import type { DocStore } from '../../src/crdt/index.js'
import type { JobmeshNode } from '../../src/node/index.js'
import type { Peer } from '../../src/peer.js'
import type { TestChain } from '@jobmesh/testkit/anvil'

let chain: TestChain | undefined
let peer: Peer | undefined
const clients: Array<{ node: JobmeshNode, docs: DocStore }> = []

afterEach(async () => {
  for (const c of clients.splice(0)) {
    await c.docs.stop()
    await c.node.stop()
  }
  await peer?.stop()
  peer = undefined
  await chain?.stop()
  chain = undefined
})

/** A node that is not registered, with a doc store, connected to `to`: how a DApp's SDK (or an attacker) joins. */
async function unregisteredNode (to: Peer): Promise<{ node: JobmeshNode, docs: DocStore }> {
  const node = await createNode({ listen: ['/ip4/127.0.0.1/tcp/0'] })
  const docs = createDocStore(node, { guards: coordGuards() })
  clients.push({ node, docs })
  await node.libp2p.dial(to.node.libp2p.getMultiaddrs()[0])
  return { node, docs }
}

describe('the index, written by nodes that are not registered', () => {
  it('holds a DApp\'s announcement of a funded job and none of a flood of announcements of jobs nobody funded', async () => {
    chain = await startChain({ accounts: 3 })
    peer = await chainPeer(chain, { process: false })
    const attacker = await unregisteredNode(peer)
    const dapp = await unregisteredNode(peer)
    const template = await fundJob(chain.clients[0], { nonce: 1n })
    const index = await peer.docs.open(INDEX_DOC)
    const refused = (): number => peer!.docs.metrics.gossipUnauthorized + peer!.docs.metrics.syncRefused

    // the flood: valid, signed announcements (a funded job's spec, re-signed) of 200 job ids the escrow does not know
    const flooded = Array.from({ length: 200 }, (_, i) => `0x${(i + 1).toString(16).padStart(64, 'f')}`)
    for (const jobId of flooded) await announceJob({ ...attacker.node, docs: attacker.docs }, template.spec, jobId, template.specCid, DEFAULT_PRICING)
    await waitFor(() => refused() > 0, { what: 'the flood refused', timeoutMs: 20_000 })

    // a DApp's job: created on chain, then announced by its node, as the SDK does
    const job = await fundJob(chain.clients[0], { nonce: 2n })
    await announceJob({ ...dapp.node, docs: dapp.docs }, job.spec, job.jobId, job.specCid, DEFAULT_PRICING)
    const jobs = index.getMap<Uint8Array>(INDEX_JOBS_MAP)
    await waitFor(() => jobs.has(job.jobId.toLowerCase()), { what: 'the funded job in the peer\'s index', timeoutMs: 20_000 })
    // the whole flood, pushed in one diff, is dropped too
    const dropped = peer.docs.metrics.syncRefused
    await attacker.docs.sync(INDEX_DOC, peer.node.peerId, { push: true, fresh: true })
    await waitFor(() => peer!.docs.metrics.syncRefused > dropped, { what: 'the pushed flood dropped', timeoutMs: 20_000 })
    expect(flooded.filter(id => jobs.has(id))).toEqual([])
    expect([...jobs.keys()]).toEqual([job.jobId.toLowerCase()])
  })
})
