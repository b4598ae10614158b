import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { ZeroAddress, parseEther } from 'ethers'
import { connect, createProvider } from '@jobmesh/contracts'
import { resultTree } from '@jobmesh/peer/protocol'
import { readPayouts, submitMandelbrot } from '../../examples/src/index.js'
import { matchesReference, startNetwork, withHistory } from './helpers.js'
import type { Network } from './helpers.js'
import type { MandelbrotImage } from '../../examples/src/index.js'
import type { ResultLeaf } from '@jobmesh/peer/protocol'

/** The test peer that copies other peers' results into its own slot under the highest term (usage in the file). */
const HIJACKING_PEER = fileURLToPath(new URL('./peers/hijacking-peer.mjs', import.meta.url))

const IMAGE: MandelbrotImage = { width: 64, height: 32, x0: -2.2, y0: 1.2, x1: 0.9, y1: -1.2, maxIter: 64 }

describe('end to end: a peer that copies other peers\' results is not paid for them', () => {
  let net: Network | undefined

  afterEach(async () => {
    await net?.stop()
    net = undefined
  })

  it('3 honest peers process, the hijacker re-signs their results with term 2^32 - 1: released with the reference outputs, every leaf pays its processor, none the hijacker', async () => {
    // peer 3 (the last: peer 0 is the bootstrap) is registered like the others, processes nothing and copies every
    // result it sees into its own slot; its verification re-runs are honest
    net = await startNetwork({ peers: 4, peer: i => i === 3 ? { entry: { path: HIJACKING_PEER }, process: false } : {} })
    const { client, devnet } = net
    const provider = createProvider(devnet.anvil.rpcUrl, { chainId: devnet.anvil.chainId })
    try {
      const { jobEscrow } = connect(devnet.deployment, provider)
      const hijacker = devnet.peers[3]
      const hijackerWallet = devnet.peerAccount(3).address.toLowerCase()
      const walletOf = new Map(devnet.peers.map((p, i) => [p.peerId, devnet.peerAccount(i).address]))
      const honest = new Set(devnet.peers.slice(0, 3).map(p => p.peerId))
      const job = await submitMandelbrot(client, { image: IMAGE, macroJobs: 4, microJobsPerMacro: 4, price: parseEther('1'), verification: 'full' })
      expect(job.samples).toBe(4)

      // one round: nothing in it is wrong (every output is correct), so nobody is rejected
      const release = await client.waitForRelease(job.jobId, { pollIntervalMs: 500, timeoutMs: 150_000 })
        .catch(withHistory(devnet, job.jobId))
      expect(release.status).toBe('Released')
      expect(await jobEscrow.queryFilter(jobEscrow.filters.JobRejected(job.jobId))).toHaveLength(0)
      const copies = hijacker.output.filter(l => l.toLowerCase().startsWith(`hijacked ${job.jobId.toLowerCase()} `))
      expect(copies.length, 'the hijacker copied no result').toBeGreaterThan(0)

      const outputs = await client.results(job.jobId, { timeoutMs: 60_000 })
      expect(outputs).toHaveLength(16)
      expect(matchesReference(outputs, IMAGE)).toBe(true)
      // the released leaves: each output's signer (from the manifest) paid at its wallet, which gives the escrow's root
      const leaves: ResultLeaf[] = outputs.map(o => ({
        microId: o.microId, macroIndex: o.macroIndex, index: o.index, outputHash: o.outputHash, payee: walletOf.get(o.signer) ?? ZeroAddress
      }))
      expect(resultTree(leaves).root).toBe((await jobEscrow.jobs(job.jobId)).resultRoot)
      const stolen = leaves.filter(l => l.payee.toLowerCase() === hijackerWallet).map(l => `${l.macroIndex}.${l.index}`)
      expect(stolen, `${stolen.length} of ${leaves.length} leaves pay the hijacker (${copies.length} copies)`).toEqual([])
      // honest peers sign only what they ran: each leaf pays a peer that processed its MicroJob
      for (const o of outputs) expect(honest.has(o.signer), `${o.macroIndex}.${o.index} signed by ${o.signer}`).toBe(true)

      // the claims: the whole processor pool goes to the honest processors, nothing to the hijacker
      const payouts = await readPayouts({ rpcUrl: devnet.anvil.rpcUrl, deployment: devnet.deployment, jobId: job.jobId, timeoutMs: 60_000 })
      const pool = BigInt(await jobEscrow.processorPool(job.jobId))
      expect(payouts.find(p => p.address.toLowerCase() === hijackerWallet)?.processor ?? 0n).toBe(0n)
      expect(payouts.reduce((a, p) => a + p.processor, 0n)).toBe(pool / 16n * 16n)
      const honestWallets = new Set([...honest].map(p => walletOf.get(p)?.toLowerCase()))
      for (const p of payouts.filter(p => p.processor > 0n)) expect(honestWallets.has(p.address.toLowerCase())).toBe(true)
      // the finalizer tells its operator whom it did not pay, and why
      const named = `signed other peers' results as their own: ${hijacker.peerId.slice(0, 8)}…${hijacker.peerId.slice(-4)}`
      const finalized = devnet.peers.flatMap(p => p.output).filter(l => l.includes(`finalized job ${job.jobId.slice(0, 8)}`))
      expect(finalized.some(l => l.includes(named)), finalized.join('\n')).toBe(true)
    } finally {
      provider.destroy()
    }
  }, 300_000)
})
