import { afterEach, describe, expect, it } from 'vitest'
import { parseEther } from 'ethers'
import { connect, createProvider, JobStatus } from '@jobmesh/contracts'
import { submitMandelbrot } from '../../examples/src/index.js'
import { CHEATING_PEER, jobHistory, matchesReference, startNetwork } from './helpers.js'
import type { Network } from './helpers.js'
import type { MandelbrotImage } from '../../examples/src/index.js'
import { waitFor } from '@jobmesh/testkit'

const IMAGE: MandelbrotImage = { width: 96, height: 64, x0: -2.2, y0: 1.2, x1: 0.9, y1: -1.2, maxIter: 64 }

describe('end to end: a cheating processor is rejected and slashed, honest peers reprocess the job', () => {
  let net: Network | undefined

  afterEach(async () => {
    await net?.stop()
    net = undefined
  })

  it('round 0 by the cheater is rejected, round 1 by honest peers is released with the reference outputs', async () => {
    // peer 0 cheats on every MicroJob and is the only processor; peers 1-3 only verify (k = 3, the submitter excluded)
    net = await startNetwork({ peers: 4, peer: i => i === 0 ? { entry: { path: CHEATING_PEER, args: ['all'] } } : { process: false } })
    const { client, devnet } = net
    const provider = createProvider(devnet.anvil.rpcUrl, { chainId: devnet.anvil.chainId })
    try {
      const { jobEscrow, nodeRegistry } = connect(devnet.deployment, provider)
      const cheater = devnet.peerAccount(0).address
      const stakeBefore = BigInt((await nodeRegistry.nodeInfo(cheater)).stake)
      const job = await submitMandelbrot(client, { image: IMAGE, macroJobs: 2, microJobsPerMacro: 4, price: parseEther('1') })

      // round 0: processed by the cheater alone, submitted, verified, rejected
      const rejected = await waitFor(async () => {
        const events = await jobEscrow.queryFilter(jobEscrow.filters.JobRejected(job.jobId))
        return events.length > 0 ? events[0] : undefined
      }, { timeoutMs: 90_000, what: 'the JobRejected event', intervalMs: 250 })
      expect('args' in rejected && String(rejected.args.culprit).toLowerCase()).toBe(cheater.toLowerCase())
      const status = await client.status(job.jobId)
      expect(status.rejections).toBe(1)
      const info = await nodeRegistry.nodeInfo(cheater)
      expect(BigInt(info.stake)).toBeLessThan(stakeBefore)

      // round 1: two honest processing peers join; the job is re-announced for round 1 and processed by them
      await devnet.addPeer()
      await devnet.addPeer()
      const honest = new Set([devnet.peers[4].peerId, devnet.peers[5].peerId])
      const release = await client.waitForRelease(job.jobId, { pollIntervalMs: 500, timeoutMs: 90_000 })
      expect(release.status).toBe('Released')
      expect(Number(await jobEscrow.statusOf(job.jobId))).toBe(JobStatus.Released)
      const submitted = await jobEscrow.queryFilter(jobEscrow.filters.ResultsSubmitted(job.jobId))
      if (submitted.length !== 2) throw new Error(`${submitted.length} submissions, expected 2\n${await jobHistory(devnet, job.jobId)}`)

      // the SDK follows the round: progress counts round 1, results are the honest peers' and match the reference
      let last = { done: 0, total: 0, round: -1 }
      for await (const p of client.progress(job.jobId, { timeoutMs: 30_000 })) last = p
      expect(last).toEqual({ done: 8, total: 8, round: 1 })
      const outputs = await client.results(job.jobId)
      expect(outputs.map(o => o.index + o.macroIndex * 4)).toEqual([0, 1, 2, 3, 4, 5, 6, 7])
      for (const o of outputs) expect(honest.has(o.signer)).toBe(true)
      expect(matchesReference(outputs, IMAGE)).toBe(true)
    } finally {
      provider.destroy()
    }
  }, 180_000)
})
