import { registerNodes, startChain } from '@jobmesh/testkit/anvil'
import { stopList, waitFor } from '@jobmesh/testkit'
import { parseEther } from 'ethers'
import { afterEach, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { publishProfile } from '../../src/jobs/index.js'
import { eligibleNodes, knownNodeWallets, verifierSupply } from '../../src/settlement/index.js'
import { announceServedJob, chainPeer } from './funded-job.js'

const running = stopList()
afterEach(running.stopAll)

describe('verifierSupply', () => {
  it('a job needs k + 1 active nodes (its k verifiers besides its submitter); a job left alone is told once', async () => {
    const chain = running.add(await startChain({ accounts: 5 }))
    const waiting: Array<[string, number]> = []
    const grown: number[] = []
    const supply = verifierSupply({ chain: chain.clients[0] }, {
      onWaiting: (job, active) => { waiting.push([job.jobId, active]) },
      onGrowth: (active) => { grown.push(active) }
    })
    // before any read: nothing is held back on a count it does not know
    expect(supply.canVerify({ jobId: '0x01', verifiers: 2 })).toBe(true)
    expect(await supply.refresh()).toBe(0)
    expect(supply.canVerify({ jobId: '0x01', verifiers: 2 })).toBe(false)
    expect(supply.canVerify({ jobId: '0x01', verifiers: 2 })).toBe(false)
    expect(waiting).toEqual([['0x01', 0]])
    await registerNodes(chain.clients.slice(1, 4), parseEther('0.1'))
    // no refresh loop runs here: a count too small for a job is read again once it is a second old
    await waitFor(() => supply.canVerify({ jobId: '0x01', verifiers: 2 }), { what: 'the job verifiable on a fresh count', timeoutMs: 10_000 })
    expect(supply.canVerify({ jobId: '0x02', verifiers: 3 })).toBe(false)
    expect(waiting).toEqual([['0x01', 0], ['0x02', 3]])
    // the read that found more nodes said so (the peer wakes its processor on it), a read finding as many does not
    expect(grown).toEqual([3])
    expect(await supply.refresh()).toBe(3)
    expect(grown).toEqual([3])
  })

  it('a peer alone on the registry leaves a funded job with 3 verifiers alone, says why, and takes it once nodes join', async () => {
    const chain = running.add(await startChain({ accounts: 5 }))
    const peer = running.add(await chainPeer(chain))
    // funded and open on chain, with the announced spec, its code on the peer itself: only the count holds it back
    const { job, owned } = await announceServedJob(peer, chain.clients[0], 3)
    const told = await waitFor(() => peer?.events.recent().find(e => e.kind === 'job:waiting'), { what: 'the job:waiting event', timeoutMs: 10_000 })
    expect(told.jobId).toBe(job.jobId)
    expect(told.text).toMatch(/is left alone until more nodes join: its 3 verifiers are drawn among the active nodes besides its submitter, 4 are needed, 1 is active$/)
    expect(owned).toEqual([])
    expect(peer.status().work.currentJob).toBeUndefined()
    // three more nodes: four active, the job can be verified and the peer takes it
    await registerNodes(chain.clients.slice(2, 5), parseEther('0.1'))
    await waitFor(() => owned.includes(job.jobId), { what: 'the peer owning the job\'s MacroJob once 4 nodes are active', timeoutMs: 20_000 })
  })

  it('a job that needs more VRAM counts only the nodes the registry grades high enough, as its draw does', async () => {
    const chain = running.add(await startChain({ accounts: 5 }))
    const big = await registerNodes(chain.clients.slice(1, 3), parseEther('0.1'), { gpuModel: 'cpu', vramGb: 24 })
    const small = await registerNodes(chain.clients.slice(3, 5), parseEther('0.1'), { gpuModel: 'cpu', vramGb: 8 })
    // the profiles every running peer publishes: how a peer knows the nodes (the registry grades them)
    const doc = new Y.Doc()
    const docs = { open: async () => doc }
    for (const [i, key] of [...big, ...small].entries()) {
      await publishProfile({ docs, privateKey: key }, { address: await chain.clients[i + 1].address(), gpuModel: 'cpu', vramGb: i < 2 ? 24 : 8 })
    }
    const parts = { docs, chain: chain.clients[0] }
    // the wallets the registry binds to the known PeerIds
    expect((await knownNodeWallets(parts)).sort()).toEqual((await Promise.all(chain.clients.slice(1, 5).map(async c => (await c.address()).toLowerCase()))).sort())
    expect(await eligibleNodes(parts, { minVramGb: 24 })).toBe(2)
    // 20 GB: the draw's tier is 20, and 8 GB nodes are graded below it
    expect(await eligibleNodes(parts, { minVramGb: 20 })).toBe(2)
    expect(await eligibleNodes(parts, { minVramGb: 8 })).toBe(4)
    expect(await eligibleNodes(parts, { minVramGb: 1, gpuModel: 'RTX 4090' })).toBe(0)
    expect(await eligibleNodes(parts, { minVramGb: 1, gpuModel: 'cpu' })).toBe(4)

    const waiting: Array<[string, number, boolean]> = []
    const supply = verifierSupply({ chain: chain.clients[0], eligible: async (req, options) => await eligibleNodes(parts, req, options) },
      { onWaiting: (job, nodes, fitting) => { waiting.push([job.jobId, nodes, fitting]) } })
    try {
      expect(await supply.refresh()).toBe(4)
      // four active nodes are enough for k = 2, but only two have 24 GB: the 24 GB job is left alone, and told why
      const large = { jobId: '0x24', verifiers: 2, requirements: { minVramGb: 24 } }
      const fits = { jobId: '0x08', verifiers: 2, requirements: { minVramGb: 8 } }
      // (asked as the processor asks, at each choice; the counts are read in the background)
      await waitFor(() => { supply.canVerify(large); return waiting.length > 0 }, { what: 'the 24 GB job told to wait', timeoutMs: 10_000 })
      expect(waiting).toEqual([['0x24', 2, true]])
      expect(supply.canVerify(large)).toBe(false)
      await waitFor(() => supply.canVerify(fits), { what: 'the 8 GB job verifiable', timeoutMs: 10_000 })
      // without requirements: the active count alone
      expect(supply.canVerify({ jobId: '0x01', verifiers: 3 })).toBe(true)
    } finally {
      supply.stop()
    }
  })
})
