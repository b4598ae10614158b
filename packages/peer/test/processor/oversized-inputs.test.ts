import { CID } from 'multiformats/cid'
import { afterEach, describe, expect, it } from 'vitest'
import { createNode } from '../../src/node/index.js'
import { encodeJobSpec } from '../../src/protocol/index.js'
import { createContentStore, jobContentBounds, rawBlockCid } from '../../src/storage/index.js'
import type { JobmeshNode } from '../../src/node/index.js'
import type { ContentStore } from '../../src/storage/index.js'
import { patternBytes, startPeers, stopPeers, testJob, waitFor } from '@jobmesh/testkit'
import type { TestPeer } from '@jobmesh/testkit'

let peers: TestPeer[] = []
let dapp: JobmeshNode | undefined

afterEach(async () => {
  await stopPeers(peers)
  peers = []
  await dapp?.stop()
  dapp = undefined
})

describe('processor: a job whose inputs are larger than it declares', () => {
  it('is refused here after one try, nothing of its data pinned, and the other job runs', async () => {
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
    at.store = createContentStore({ helia: peer.node.helia }, { fetchTimeoutMs: 20_000 })
    // the DApp's node holds the data: 4 blocks of 16 bytes declared, 3 MiB behind the data URI
    dapp = await createNode()
    await peer.node.libp2p.dial(dapp.libp2p.getMultiaddrs()[0], { signal: AbortSignal.timeout(10_000) })
    const big = testJob(1, 4)
    const dataUri = `ipfs://${await createContentStore({ helia: dapp.helia }).addBytes(patternBytes(3 * 1024 * 1024))}`
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
    expect(await peer.node.helia.pins.isPinned(CID.parse(dataUri.slice('ipfs://'.length)))).toBe(false)
  })
})
