import { afterEach, describe, expect, it } from 'vitest'
import { PNG } from 'pngjs'
import { parseEther } from 'ethers'
import { connect, createProvider } from '@jobmesh/contracts'
import {
  encodeMandelbrotData, mandelbrotReference, mandelbrotResultPng, submitMandelbrot, MANDELBROT_TILE_HEADER
} from '../../examples/src/index.js'
import { CHEATING_PEER, startNetwork } from './helpers.js'
import type { Network } from './helpers.js'
import type { MandelbrotImage } from '../../examples/src/index.js'

const IMAGE: MandelbrotImage = { width: 64, height: 32, x0: -2.2, y0: 1.2, x1: 0.9, y1: -1.2, maxIter: 64 }

async function until<T> (what: string, check: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise(resolve => setTimeout(resolve, 250))
  }
}

describe('end to end: full verification catches one faked MicroJob and slashes its processor', () => {
  let net: Network | undefined

  afterEach(async () => {
    await net?.stop()
    net = undefined
  })

  it('a peer fakes 1 of 16 MicroJobs while 3 honest peers process: rejected, the faker slashed, re-run and released', async () => {
    // peer 0 returns a wrong output for the first MicroJob it runs, and honest ones afterwards
    net = await startNetwork({ peers: 4, peer: i => i === 0 ? { entry: { path: CHEATING_PEER, args: ['first'] } } : {} })
    const { client, devnet } = net
    const provider = createProvider(devnet.anvil.rpcUrl, { chainId: devnet.anvil.chainId })
    try {
      const { jobEscrow, nodeRegistry } = connect(devnet.deployment, provider)
      const faker = devnet.peerAccount(0).address
      const stakes = new Map<string, bigint>()
      for (let i = 0; i < 4; i++) {
        const a = devnet.peerAccount(i).address
        stakes.set(a.toLowerCase(), BigInt((await nodeRegistry.nodeInfo(a)).stake))
      }
      const job = await submitMandelbrot(client, { image: IMAGE, macroJobs: 2, microJobsPerMacro: 8, price: parseEther('1'), verification: 'full' })
      expect(job.samples).toBe(8)

      // round 0: every MicroJob re-run by the verifiers; the faked one is found and its processor is the culprit
      const rejected = await until('the JobRejected event', async () => {
        const events = await jobEscrow.queryFilter(jobEscrow.filters.JobRejected(job.jobId))
        return events.length > 0 ? events[0] : undefined
      }, 120_000)
      const args = 'args' in rejected ? rejected.args : undefined
      expect(String(args?.culprit).toLowerCase()).toBe(faker.toLowerCase())
      const bond = 2n * parseEther('1')
      expect(BigInt((await nodeRegistry.nodeInfo(faker)).stake)).toBe((stakes.get(faker.toLowerCase()) ?? 0n) - bond)
      // the honest finalizer (when it was not the faker) keeps its stake
      const submitter = String(args?.submitter).toLowerCase()
      if (submitter !== faker.toLowerCase()) {
        expect(BigInt((await nodeRegistry.nodeInfo(submitter)).stake)).toBeGreaterThanOrEqual(stakes.get(submitter) ?? 0n)
      }

      // round 1 without the faker's work: released with the reference outputs
      const release = await client.waitForRelease(job.jobId, { pollIntervalMs: 500, timeoutMs: 120_000 })
      expect(release.status).toBe('Released')
      const outputs = await client.results(job.jobId, { timeoutMs: 60_000 })
      expect(outputs).toHaveLength(16)
      const fakerPeer = devnet.peers[0].peerId
      for (const o of outputs) expect(o.signer).not.toBe(fakerPeer)
      const png = PNG.sync.read(Buffer.from(mandelbrotResultPng(outputs)))
      const reference = mandelbrotReference(encodeMandelbrotData(IMAGE, 1)).subarray(MANDELBROT_TILE_HEADER)
      const gray = new Uint8Array(IMAGE.width * IMAGE.height)
      for (let i = 0; i < gray.length; i++) gray[i] = png.data[i * 4]
      expect(Buffer.from(gray).equals(Buffer.from(reference))).toBe(true)
    } finally {
      provider.destroy()
    }
  }, 300_000)
})

/** Smallest and largest counts of Binomial(n, p) outside which lies at most `alpha` on each side. */
function binomialBounds (n: number, p: number, alpha: number): [number, number] {
  const pmf: number[] = []
  let c = 1
  for (let x = 0; x <= n; x++) {
    pmf.push(c * p ** x * (1 - p) ** (n - x))
    c = c * (n - x) / (x + 1)
  }
  let lo = 0
  for (let acc = pmf[0]; acc <= alpha && lo < n; acc += pmf[++lo]);
  let hi = n
  for (let acc = pmf[n]; acc <= alpha && hi > 0; acc += pmf[--hi]);
  return [lo, hi]
}

describe('end to end: the default verification level detects fakes at the designed rate', () => {
  let net: Network | undefined

  afterEach(async () => {
    await net?.stop()
    net = undefined
  })

  it('over 20 jobs each with one faked MicroJob, detections agree with 1/P (binomial bound), each one slashes the faker', async () => {
    net = await startNetwork({ peers: 4, peer: i => i === 0 ? { entry: { path: CHEATING_PEER, args: ['first-per-job'] } } : {} })
    const { client, devnet } = net
    const provider = createProvider(devnet.anvil.rpcUrl, { chainId: devnet.anvil.chainId })
    try {
      const { jobEscrow, nodeRegistry } = connect(devnet.deployment, provider)
      const faker = devnet.peerAccount(0).address
      const stake0 = BigInt((await nodeRegistry.nodeInfo(faker)).stake)
      const price = parseEther('0.1')
      const P = 4
      // 20 jobs of 2 x 4 MicroJobs, one verifier each, the default level: one MicroJob per MacroJob per round
      const jobs = await Promise.all(Array.from({ length: 20 }, async () =>
        submitMandelbrot(client, { image: { ...IMAGE, height: 8 }, macroJobs: 2, microJobsPerMacro: P, price, verifiers: 1 })))
      for (const j of jobs) expect(j.samples).toBe(1)
      const releases = await Promise.all(jobs.map(async j => client.waitForRelease(j.jobId, { pollIntervalMs: 1000, timeoutMs: 400_000 })))
      for (const r of releases) expect(r.status).toBe('Released')

      // the fakes the faker made (it prints each), and the rounds that caught them
      const faked = new Set(devnet.peers[0].output.filter(l => l.startsWith('cheated on ')).map(l => l.split(' ')[2].toLowerCase()))
      let detected = 0
      for (const j of jobs) {
        const rejections = await jobEscrow.queryFilter(jobEscrow.filters.JobRejected(j.jobId))
        for (const e of rejections) {
          expect('args' in e && String(e.args.culprit).toLowerCase()).toBe(faker.toLowerCase())
          expect(faked.has(j.jobId.toLowerCase())).toBe(true)
        }
        if (rejections.length > 0) detected++
      }
      // each fake MicroJob is seen by one round with probability 1/P (one sample per MacroJob); one round per job
      const [lo, hi] = binomialBounds(faked.size, 1 / P, 1e-4)
      console.info(`default level: ${detected} of ${faked.size} faked jobs detected (designed 1/${P}; bounds ${lo}..${hi})`)
      expect(faked.size).toBeGreaterThanOrEqual(10)
      expect(detected).toBeGreaterThanOrEqual(lo)
      expect(detected).toBeLessThanOrEqual(hi)
      // each detection slashed the faker one bond (2 x the fee)
      expect(BigInt((await nodeRegistry.nodeInfo(faker)).stake)).toBe(stake0 - BigInt(detected) * 2n * price)
    } finally {
      provider.destroy()
    }
  }, 480_000)
})
