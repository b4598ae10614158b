import { afterEach, describe, expect, it } from 'vitest'
import { startPeers, stopPeers, testJob, waitFor } from '@jobmesh/testkit'
import type { TestPeer } from '@jobmesh/testkit'

let peers: TestPeer[] = []

afterEach(async () => {
  await stopPeers(peers)
  peers = []
})

/** The job of each MicroJob this peer starts, in order. */
function starts (peer: TestPeer): string[] {
  const order: string[] = []
  peer.processor.addEventListener('microjob:start', (evt) => { order.push(evt.detail.jobId) })
  return order
}

describe('processor: models', () => {
  it('a peer that keeps a model at hand works on the job naming it first, though another job is worth more', async () => {
    peers = await startPeers(1, { hardware: { gpuModel: 'cpu', vramGb: 8, heldModelIds: ['ipfs://weights'] } })
    const [peer] = peers
    // more MicroJobs for the same price: the model job is worth less per second
    const model = testJob(2, 8, { minVramGb: 1, modelId: 'ipfs://weights' })
    const plain = testJob(1, 4)
    await peer.processor.announceJob(plain.spec, plain.jobId, plain.specCid)
    await peer.processor.announceJob(model.spec, model.jobId, model.specCid)
    const values = new Map(peer.processor.knownJobs().map(j => [j.jobId, BigInt(j.value)]))
    expect(values.get(plain.jobId) ?? 0n).toBeGreaterThan(values.get(model.jobId) ?? 0n)
    expect(values.get(model.jobId) ?? 0n).toBeGreaterThan(0n)
    const order = starts(peer)
    await peer.processor.start()
    await waitFor(() => order.length > 0, { timeoutMs: 10_000, what: 'a first MicroJob' })
    expect(order[0]).toBe(model.jobId)
    await waitFor(() => peer.processor.loadedModel() === 'ipfs://weights', { timeoutMs: 10_000, what: 'the model job to be the last run' })
  })

  it('without it, the job worth more goes first; the model of the job it ran is then warm', async () => {
    peers = await startPeers(1)
    const [peer] = peers
    const model = testJob(2, 8, { minVramGb: 1, modelId: 'ipfs://weights' })
    const plain = testJob(1, 4)
    await peer.processor.announceJob(plain.spec, plain.jobId, plain.specCid)
    await peer.processor.announceJob(model.spec, model.jobId, model.specCid)
    const order = starts(peer)
    await peer.processor.start()
    await waitFor(() => order.length > 0, { timeoutMs: 10_000, what: 'a first MicroJob' })
    expect(order[0]).toBe(plain.jobId)
    expect(peer.processor.loadedModel()).toBeUndefined()
    await waitFor(() => order.includes(model.jobId), { timeoutMs: 20_000, what: 'the model job' })
    expect(peer.processor.loadedModel()).toBe('ipfs://weights')
  })
})
