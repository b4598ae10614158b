import { timeoutSignal } from '@jobmesh/contracts'
import { jobsTopic } from '@jobmesh/peer/coord'
import { createDocStore } from '@jobmesh/peer/crdt'
import { createNode } from '@jobmesh/peer/node'
import { createProcessor } from '@jobmesh/peer/processor'
import { createTrafficCounters } from '@jobmesh/peer/protocol'
import { testExecutor } from './test-executor.js'
import { waitFor } from './wait-for.js'
import type { DocStore } from '@jobmesh/peer/crdt'
import type { JobmeshNode } from '@jobmesh/peer/node'
import type { Processor, ProcessorInit } from '@jobmesh/peer/processor'
import type { TrafficCounters } from '@jobmesh/peer/protocol'

/** One in-process peer: a real libp2p + helia node, its doc store and a processor (not started). */
export interface TestPeer {
  node: JobmeshNode
  docs: DocStore
  processor: Processor
  /** Traffic counters given to the doc store and the processor. */
  counters: TrafficCounters
  id: string
  stopped: boolean
}

/**
 * Starts `n` peers on loopback (random ports), dialled as a full mesh, with processors that are not started yet:
 * the {@link testExecutor}, short heartbeats and leases (a test's failover takes a second, not a minute); `init`
 * overrides any of it. `options.clockOf(i)`: peer i's processor clock (e.g. one running fast), the machine's when undefined.
 */
export async function startPeers (n: number, init: Partial<ProcessorInit> = {},
  options: { clockOf?: (i: number) => (() => number) | undefined } = {}): Promise<TestPeer[]> {
  const peers: TestPeer[] = []
  for (let i = 0; i < n; i++) {
    const node = await createNode()
    const counters = createTrafficCounters()
    const docs = createDocStore({ ...node, counters }, { compactIntervalMs: 0 })
    const clock = options.clockOf?.(i)
    const processor = createProcessor({ ...node, docs, counters, ...(clock === undefined ? {} : { clock }) }, {
      executor: testExecutor(),
      hardware: { gpuModel: 'cpu', vramGb: 8 },
      heartbeatMs: 300,
      ownerTimeoutMs: 1_000,
      leases: { leaseMs: 3_000, renewMs: 1_000, skewMs: 200, settleMs: 50 },
      // the docs of MacroJobs a peer did not work on are read 1 s after the job ended there on their summaries
      summaryCheckMs: 1_000,
      ...init
    })
    peers.push({ node, docs, processor, counters, id: node.peerId.toString(), stopped: false })
  }
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      await peers[i].node.libp2p.dial(peers[j].node.libp2p.getMultiaddrs()[0], { signal: timeoutSignal(10_000) })
    }
  }
  return peers
}

/** Stops every peer not stopped yet (processor, doc store, node), tolerating peers a test already killed. */
export async function stopPeers (peers: TestPeer[]): Promise<void> {
  await Promise.all(peers.map(async p => {
    if (p.stopped) return
    p.stopped = true
    await p.processor.stop().catch(() => {})
    await p.docs.stop().catch(() => {})
    await p.node.stop().catch(() => {})
  }))
}

/** Waits until every peer's gossipsub sees the other peers subscribed to `topic` (default: the jobs topic). */
export async function waitForMesh (peers: TestPeer[], topic: string = jobsTopic()): Promise<void> {
  await waitFor(() => peers.every(p => p.node.pubsub.getSubscribers(topic).length >= peers.length - 1), {
    timeoutMs: 10_000, what: `subscribers of ${topic}`
  })
}
