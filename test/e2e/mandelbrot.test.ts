import { afterEach, describe, expect, it } from 'vitest'
import { PNG } from 'pngjs'
import { parseEther } from 'ethers'
import { connect, createProvider, JobStatus } from '@jobmesh/contracts'
import { createJobClient } from '@jobmesh/dapp-sdk'
import { waitFor } from '@jobmesh/testkit'
import {
  mandelbrotResultPng, readPayouts, submitMandelbrot
} from '../../examples/src/index.js'
import { matchesReference, peerStatus, startNetwork } from './helpers.js'
import type { Network } from './helpers.js'
import type { MandelbrotImage } from '../../examples/src/index.js'

const IMAGE: MandelbrotImage = { width: 96, height: 64, x0: -2.2, y0: 1.2, x1: 0.9, y1: -1.2, maxIter: 64 }

describe('end to end: a Mandelbrot job on a devnet of 4 jobmesh processes', () => {
  let net: Network | undefined

  afterEach(async () => {
    await net?.stop()
    net = undefined
  })

  it('is processed, verified on chain, released, paid out, and its PNG matches the reference', async () => {
    net = await startNetwork({ peers: 4 })
    const { client, devnet } = net
    // what each peer follows before the job: the index doc and the network's topics
    const following = await Promise.all(devnet.peers.map(async p => (await peerStatus(p.dataDir)).following))
    for (const f of following) expect(f?.docs).toBeGreaterThanOrEqual(1)
    const job = await submitMandelbrot(client, { image: IMAGE, macroJobs: 2, microJobsPerMacro: 4, price: parseEther('1') })
    expect(job.microJobs).toHaveLength(8)

    let last = 0
    for await (const p of client.progress(job.jobId)) last = p.done
    expect(last).toBe(8)

    const release = await client.waitForRelease(job.jobId, { pollIntervalMs: 500, timeoutMs: 120_000 })
    expect(release.status).toBe('Released')

    // results: every hash checked by the SDK; the stitched image equals a local rendering of the same data
    const outputs = await client.results(job.jobId)
    expect(outputs.map(o => o.index + o.macroIndex * 4)).toEqual([0, 1, 2, 3, 4, 5, 6, 7])
    const png = PNG.sync.read(Buffer.from(mandelbrotResultPng(outputs)))
    expect([png.width, png.height]).toEqual([IMAGE.width, IMAGE.height])
    expect(matchesReference(outputs, IMAGE)).toBe(true)

    // payouts: the peers claim the whole processor pool; verifiers were paid; only devnet peers were paid
    const payouts = await readPayouts({ rpcUrl: devnet.anvil.rpcUrl, deployment: devnet.deployment, jobId: job.jobId, timeoutMs: 60_000 })
    const provider = createProvider(devnet.anvil.rpcUrl, { chainId: devnet.anvil.chainId })
    try {
      const { jobEscrow } = connect(devnet.deployment, provider)
      expect(Number(await jobEscrow.statusOf(job.jobId))).toBe(JobStatus.Released)
      // the verifiers re-ran the sample in their own processes and agree on its execution digest (tag on chain)
      const tags = (await jobEscrow.verifiersOf(job.jobId)).map(v => Number(v.digestTag))
      expect(tags.length).toBeGreaterThanOrEqual(2)
      expect(new Set(tags).size).toBe(1)
      expect(tags[0]).not.toBe(0)
      // one leaf per MicroJob, each paying pool / 8 to the wallet of the PeerId that signed it
      const pool = BigInt(await jobEscrow.processorPool(job.jobId))
      expect(payouts.reduce((a, p) => a + p.processor, 0n)).toBe(pool / 8n * 8n)
      expect(payouts.some(p => p.verifier > 0n)).toBe(true)
      // every peer that ran a MicroJob joined the job on chain (its consent to be named as a payee, whose bond the
      // submission locks), and every processor paid but the submitter had joined: named, not re-run by the finalizer
      const joined = new Set((await jobEscrow.queryFilter(jobEscrow.filters.JobJoined(job.jobId))).map(e => String('args' in e ? e.args.node : '').toLowerCase()))
      const statuses = await Promise.all(devnet.peers.map(async p => await peerStatus(p.dataDir)))
      const ran = devnet.peers.map((_, i) => devnet.peerAccount(i).address.toLowerCase()).filter((_, i) => statuses[i].work.microJobsDone > 0)
      expect(ran.length).toBeGreaterThan(0)
      for (const a of ran) expect(joined.has(a)).toBe(true)
      const [submitted] = await jobEscrow.queryFilter(jobEscrow.filters.ResultsSubmitted(job.jobId))
      const submitter = String('args' in submitted ? submitted.args.submitter : '').toLowerCase()
      for (const p of payouts) if (p.processor > 0n && p.address.toLowerCase() !== submitter) expect(joined.has(p.address.toLowerCase())).toBe(true)
    } finally {
      provider.destroy()
    }
    const wallets = new Set(devnet.peers.map((_, i) => devnet.peerAccount(i).address.toLowerCase()))
    for (const p of payouts) expect(wallets.has(p.address.toLowerCase())).toBe(true)

    // the job is over: every peer closes its docs and leaves its topics, back to what it followed before the job
    await waitFor(async () => {
      const now = await Promise.all(devnet.peers.map(async p => await peerStatus(p.dataDir)))
      return now.every((s, i) => s.following?.docs === following[i]?.docs && s.following?.topics === following[i]?.topics &&
        s.jobs.find(j => j.jobId === job.jobId.toLowerCase())?.state === 'settled')
    }, { timeoutMs: 60_000, intervalMs: 500, what: 'every peer to retire the released job' })
    // a DApp that comes back later (its own copy gone) still gets the results, from the peers' stored docs
    await client.stop()
    const later = await createJobClient({ rpcUrl: devnet.anvil.rpcUrl, signer: devnet.dapp.privateKey, deployment: devnet.deployment, bootstrap: devnet.bootstrap })
    try {
      const again = await later.results(job.jobId)
      expect(again.map(o => o.outputHash)).toEqual(outputs.map(o => o.outputHash))
    } finally {
      await later.stop()
    }
  }, 240_000)
})
