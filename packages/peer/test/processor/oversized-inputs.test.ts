import { afterEach, describe, expect, it } from 'vitest'
import { encodeJobSpec } from '../../src/protocol/index.js'
import { createContentStore, jobContentBounds, rawBlockCid } from '../../src/storage/index.js'
import type { ContentStore } from '../../src/storage/index.js'
import { startPeers, stopPeers, testJob, waitFor } from '@jobmesh/testkit'
import type { TestPeer } from '@jobmesh/testkit'

let peers: TestPeer[] = []

afterEach(async () => {
  await stopPeers(peers)
  peers = []
})

describe('processor: a job whose inputs are larger than it declares', () => {
  it('is refused here after one try (its pin walks no further than the bound), and the other job runs', async () => {
    // the peer's own store, once its node exists
    const at: { store?: ContentStore } = {}
    const tries = new Map<string, number>()
    peers = await startPeers(1, {
      // what `jobmesh start` does in prepareJob, for the data only: the test jobs' code names no content
      prepareJob: async (job, options) => {
        tries.set(job.jobId, (tries.get(job.jobId) ?? 0) + 1)
        if (!job.spec.dataUri.startsWith('ipfs://') || at.store == null) return
        await at.store.pin(job.spec.dataUri, { ...options, maxBytes: jobContentBounds(job.spec).data })
      }
    })
    const [peer] = peers
    const store = createContentStore({ helia: peer.node.helia })
    at.store = store
    // 4 blocks of 16 bytes declared, 3 MiB behind the data URI
    const big = testJob(1, 4)
    const dataUri = `ipfs://${await store.addBytes(new Uint8Array(3 * 1024 * 1024).fill(7))}`
    const plain = testJob(1, 4)
    const bigSpec = { ...big.spec, dataUri }
    // a spec CID of its own (the test jobs share one): content is prepared once per spec
    await peer.processor.announceJob(bigSpec, big.jobId, rawBlockCid(encodeJobSpec(bigSpec)).toString())
    await peer.processor.announceJob(plain.spec, plain.jobId, plain.specCid)
    await peer.processor.start()

    const state = (jobId: string): string | undefined => peer.processor.knownJobs().find(j => j.jobId === jobId)?.state
    await waitFor(() => state(big.jobId) === 'refused', { timeoutMs: 20_000, what: 'the oversized job refused' })
    await waitFor(() => state(plain.jobId) === 'complete', { timeoutMs: 20_000, what: 'the other job complete' })
    expect(tries.get(big.jobId)).toBe(1)
  })
})
