import { afterEach, describe, expect, it } from 'vitest'
import { connect, createProvider } from '@jobmesh/contracts'
import { waitFor } from '@jobmesh/testkit'
import { parseEther } from 'ethers'
import { submitMandelbrot } from '../../examples/src/index.js'
import { FRAMING_PEER, startNetwork, submitUntilCheated, withHistory } from './helpers.js'
import type { Network } from './helpers.js'
import type { MandelbrotImage } from '../../examples/src/index.js'

const IMAGE: MandelbrotImage = { width: 64, height: 32, x0: -2.2, y0: 1.2, x1: 0.9, y1: -1.2, maxIter: 64 }
/** Anvil's account 2: the wallet of the devnet's peer 1 (peers use accounts 1..N). */
const VICTIM = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'

describe('end to end: a faker whose profile names another node\'s wallet', () => {
  let net: Network | undefined

  afterEach(async () => {
    await net?.stop()
    net = undefined
  })

  it('is blamed and slashed itself (the registry\'s owner of its PeerId), and the node it named keeps its stake', async () => {
    // peer 0 fakes the first MicroJob it processes of each job; its profile names peer 1's wallet as its own
    net = await startNetwork({ peers: 4, peer: i => i === 0 ? { entry: { path: FRAMING_PEER, args: [VICTIM, 'first-processed-per-job'] } } : {} })
    const { client, devnet } = net
    expect(devnet.peerAccount(1).address).toBe(VICTIM)
    const provider = createProvider(devnet.anvil.rpcUrl, { chainId: devnet.anvil.chainId })
    try {
      const { jobEscrow, nodeRegistry } = connect(devnet.deployment, provider)
      const stake = async (i: number): Promise<bigint> => BigInt((await nodeRegistry.nodeInfo(devnet.peerAccount(i).address)).stake)
      const [fakerBefore, victimBefore] = [await stake(0), await stake(1)]
      // two MacroJobs per peer, every MicroJob re-run by the verifiers: the fake is found in round 0
      const price = parseEther('1')
      const job = await submitUntilCheated(devnet, client, devnet.peers[0],
        async () => await submitMandelbrot(client, { image: IMAGE, macroJobs: 8, microJobsPerMacro: 2, price, verification: 'full' }))
      const rejected = await waitFor(async () => {
        const events = await jobEscrow.queryFilter(jobEscrow.filters.JobRejected(job.jobId))
        return events.length > 0 ? events[0] : undefined
      }, { timeoutMs: 150_000, what: 'the JobRejected event', intervalMs: 250 }).catch(withHistory(devnet, job.jobId))
      const args = 'args' in rejected ? rejected.args : undefined
      expect(String(args?.culprit).toLowerCase()).toBe(devnet.peerAccount(0).address.toLowerCase())
      expect(await stake(0)).toBe(fakerBefore - 2n * price)
      expect(await stake(1)).toBeGreaterThanOrEqual(victimBefore)
      // round 1, without the faker's work: released
      const release = await client.waitForRelease(job.jobId, { pollIntervalMs: 500, timeoutMs: 120_000 }).catch(withHistory(devnet, job.jobId))
      expect(release.status).toBe('Released')
    } finally {
      provider.destroy()
    }
  }, 480_000)
})
