import { createDocStore } from '../../src/crdt/index.js'
import { createNode } from '../../src/node/index.js'
import { testExecutor } from '@jobmesh/testkit'
import { createProcessor } from '../../src/processor/index.js'
import { computeJobId, createTrafficCounters, parseJobSpec } from '../../src/protocol/index.js'
import type { DocStore } from '../../src/crdt/index.js'
import type { JobmeshNode } from '../../src/node/index.js'
import type { Processor, ProcessorInit } from '../../src/processor/index.js'
import type { JobSpec, TrafficCounters } from '../../src/protocol/index.js'

export interface TestPeer {
  node: JobmeshNode
  docs: DocStore
  processor: Processor
  /** Traffic counters given to the doc store and the processor. */
  counters: TrafficCounters
  id: string
  stopped: boolean
}

export function spec (macroJobs: number, microJobsPerMacro: number): { spec: JobSpec, jobId: string, specCid: string } {
  const s = parseJobSpec({
    version: 1,
    creator: '0x00000000000000000000000000000000000000a1',
    codeUri: 'ipfs://bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy',
    dataUri: 'https://example.org/data.bin',
    blockSize: 16,
    blockCount: macroJobs * microJobsPerMacro,
    slicing: { macroJobs, microJobsPerMacro, blocksPerMicro: 1 },
    seed: String(Math.floor(Math.random() * 1e9)),
    requirements: { minVramGb: 1 },
    price: '10000000000000000000',
    estimate: { secondsPerMicroJob: 1 },
    verifiers: 3,
    deadline: 1_900_000_000_000
  })
  const specCid = 'bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy'
  return { spec: s, jobId: computeJobId(s.creator, specCid, BigInt(Math.floor(Math.random() * 1e9))), specCid }
}

/** Starts `n` connected peers (full mesh) with processors that are not started yet. */
export async function startPeers (n: number, init: Partial<ProcessorInit> = {}): Promise<TestPeer[]> {
  const peers: TestPeer[] = []
  for (let i = 0; i < n; i++) {
    const node = await createNode()
    const counters = createTrafficCounters()
    const docs = createDocStore({ ...node, counters }, { compactIntervalMs: 0 })
    const processor = createProcessor({ ...node, docs, counters }, {
      executor: testExecutor(),
      hardware: { gpuModel: 'cpu', vramGb: 8 },
      heartbeatMs: 300,
      ownerTimeoutMs: 1_000,
      leases: { leaseMs: 3_000, renewMs: 1_000, skewMs: 200, settleMs: 50 },
      ...init
    })
    peers.push({ node, docs, processor, counters, id: node.peerId.toString(), stopped: false })
  }
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      await peers[i].node.libp2p.dial(peers[j].node.libp2p.getMultiaddrs()[0], { signal: AbortSignal.timeout(10_000) })
    }
  }
  return peers
}

export async function stopPeers (peers: TestPeer[]): Promise<void> {
  await Promise.all(peers.map(async p => {
    if (p.stopped) return
    p.stopped = true
    await p.processor.stop().catch(() => {})
    await p.docs.stop().catch(() => {})
    await p.node.stop().catch(() => {})
  }))
}

/** Resolves when `cond()` holds (re-checked every 20 ms), rejects after `timeoutMs`. */
export async function waitFor (cond: () => boolean, timeoutMs = 20_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise(resolve => setTimeout(resolve, 20))
  }
}

/** Waits until every peer's gossipsub sees `min` subscribers on a topic. */
export async function waitForMesh (peers: TestPeer[], topic: string): Promise<void> {
  await waitFor(() => peers.every(p => p.node.pubsub.getSubscribers(topic).length >= peers.length - 1), 10_000, `subscribers of ${topic}`)
}
