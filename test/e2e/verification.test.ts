import { generateKeyPairSync, sign } from 'node:crypto'
import { afterEach, describe, expect, it } from 'vitest'
import { Wallet, id, parseEther } from 'ethers'
import { connect, createProvider, signPeerBinding } from '@jobmesh/contracts'
import { createWasmExecutor, outputHash } from '@jobmesh/peer/executor'
import { resultTree, samplePositions } from '@jobmesh/peer/protocol'
import { resultCommitment } from '@jobmesh/peer/settlement'
import {
  encodeMandelbrotData, loadExampleWasm, readPayouts, submitMandelbrot, MANDELBROT_BLOCK_SIZE
} from '../../examples/src/index.js'
import { CHEATING_PEER, cheatedOn, jobHistory, matchesReference, startNetwork, submitUntilCheated, withHistory } from './helpers.js'
import type { Network } from './helpers.js'
import type { MandelbrotImage } from '../../examples/src/index.js'
import type { ResultLeaf } from '@jobmesh/peer/protocol'
import type { PeerBindingKey } from '@jobmesh/contracts'
import { waitFor } from '@jobmesh/testkit'

/** A fresh Ed25519 PeerId key (node:crypto: RFC 8032 signatures, as a libp2p peer's key). */
function peerKey (): PeerBindingKey {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519')
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x ?? '', 'base64url')
  return { type: 'Ed25519', publicKey: { raw }, sign: (data) => sign(null, data, privateKey) }
}

const IMAGE: MandelbrotImage = { width: 64, height: 32, x0: -2.2, y0: 1.2, x1: 0.9, y1: -1.2, maxIter: 64 }

/** Each peer's stake now, by lower-case address. */
async function stakesOf (devnet: Network['devnet'], nodeRegistry: ReturnType<typeof connect>['nodeRegistry']): Promise<Map<string, bigint>> {
  const stakes = new Map<string, bigint>()
  for (let i = 0; i < devnet.peers.length; i++) {
    const a = devnet.peerAccount(i).address
    stakes.set(a.toLowerCase(), BigInt((await nodeRegistry.nodeInfo(a)).stake))
  }
  return stakes
}

describe('end to end: full verification catches one faked MicroJob and slashes its processor', () => {
  let net: Network | undefined

  afterEach(async () => {
    await net?.stop()
    net = undefined
  })

  it('a peer fakes 1 of 16 MicroJobs while 3 honest peers process: rejected, the faker slashed, re-run and released', async () => {
    // peer 0 returns a wrong output for the first MicroJob it processes, and honest ones afterwards (its re-runs as a
    // verifier too: with `first`, a faker that processed nothing in round 0 faked a verification re-run instead, was
    // outvoted and the job released, and the wait for the rejection below timed out)
    net = await startNetwork({ peers: 4, peer: i => i === 0 ? { entry: { path: CHEATING_PEER, args: ['first-processed-per-job'] } } : {} })
    const { client, devnet } = net
    const provider = createProvider(devnet.anvil.rpcUrl, { chainId: devnet.anvil.chainId })
    try {
      const { jobEscrow, nodeRegistry } = connect(devnet.deployment, provider)
      const faker = devnet.peerAccount(0).address
      const stakes = await stakesOf(devnet, nodeRegistry)
      // a MacroJob per peer: each peer claims one; a faker that learns the job late may find nothing open, and then
      // the next job is the test's
      const job = await submitUntilCheated(devnet, client, devnet.peers[0],
        async () => await submitMandelbrot(client, { image: IMAGE, macroJobs: 4, microJobsPerMacro: 4, price: parseEther('1'), verification: 'full' }))
      expect(job.samples).toBe(4)

      // round 0: every MicroJob re-run by the verifiers; the faked one is found and its processor is the culprit
      const rejected = await waitFor(async () => {
        const events = await jobEscrow.queryFilter(jobEscrow.filters.JobRejected(job.jobId))
        return events.length > 0 ? events[0] : undefined
      }, { timeoutMs: 120_000, what: 'the JobRejected event', intervalMs: 250 })
        .catch(withHistory(devnet, job.jobId))
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
        .catch(withHistory(devnet, job.jobId))
      expect(release.status).toBe('Released')
      const outputs = await client.results(job.jobId, { timeoutMs: 60_000 })
      expect(outputs).toHaveLength(16)
      const fakerPeer = devnet.peers[0].peerId
      for (const o of outputs) expect(o.signer).not.toBe(fakerPeer)
      expect(matchesReference(outputs, IMAGE)).toBe(true)
      // a join is consent for one round: round 1's processors joined it again, and each signer paid in it but the
      // round's submitter is among them (a round-0 join could not be named)
      const joins = await jobEscrow.queryFilter(jobEscrow.filters.JobJoined(job.jobId))
      const round1 = new Set(joins.flatMap(e => 'args' in e && Number(e.args.round) === 1 ? [String(e.args.node).toLowerCase()] : []))
      expect(round1.size).toBeGreaterThan(0)
      const submissions = await jobEscrow.queryFilter(jobEscrow.filters.ResultsSubmitted(job.jobId))
      const last = submissions[submissions.length - 1]
      const submitter1 = String('args' in last ? last.args.submitter : '').toLowerCase()
      const walletOf = new Map(devnet.peers.map((p, i) => [p.peerId, devnet.peerAccount(i).address.toLowerCase()]))
      for (const o of outputs) {
        const wallet = walletOf.get(o.signer)
        if (wallet !== submitter1) expect(round1.has(wallet ?? '')).toBe(true)
      }
    } finally {
      provider.destroy()
    }
  }, 480_000)
})

describe('end to end: a faked MicroJob whose output is withheld does not stall the job', () => {
  let net: Network | undefined

  afterEach(async () => {
    await net?.stop()
    net = undefined
  })

  it('an honest run stands in for it (the finalizer\'s own re-run, or another peer\'s): released in round 0 with the reference outputs, nobody slashed', async () => {
    // peer 0 returns a wrong output for the first MicroJob it processes and never stores it: nobody can fetch it. Its
    // re-runs as a verifier stay honest (with `first`, a faker that processed nothing faked its first verification
    // re-run instead: outvoted and penalised, and no output was withheld)
    net = await startNetwork({ peers: 4, peer: i => i === 0 ? { entry: { path: CHEATING_PEER, args: ['withhold-first-processed-per-job'] } } : {} })
    const { client, devnet } = net
    const provider = createProvider(devnet.anvil.rpcUrl, { chainId: devnet.anvil.chainId })
    try {
      const { jobEscrow, nodeRegistry } = connect(devnet.deployment, provider)
      const stakes = await stakesOf(devnet, nodeRegistry)
      // two MacroJobs per peer: each peer claims one at once; a faker that learns the job late may find nothing open,
      // and then the next job is the test's
      const job = await submitUntilCheated(devnet, client, devnet.peers[0],
        async () => await submitMandelbrot(client, { image: IMAGE, macroJobs: 8, microJobsPerMacro: 2, price: parseEther('1'), verification: 'full' }))
      const release = await client.waitForRelease(job.jobId, { pollIntervalMs: 500, timeoutMs: 150_000 })
        .catch(withHistory(devnet, job.jobId))
      expect(release.status).toBe('Released')
      const faked = cheatedOn(devnet.peers[0].output, job.jobId)

      // one round: every MicroJob re-run by the verifiers passed, nobody was blamed or slashed
      expect(await jobEscrow.queryFilter(jobEscrow.filters.JobRejected(job.jobId))).toHaveLength(0)
      const after = await stakesOf(devnet, nodeRegistry)
      const lost = [...stakes].filter(([a, stake]) => (after.get(a) ?? 0n) < stake).map(([a, stake]) => `${a} lost ${stake - (after.get(a) ?? 0n)} wei`)
      if (lost.length > 0) throw new Error(`stakes lost: ${lost.join(', ')}\n${await jobHistory(devnet, job.jobId)}`)
      const submitted = await jobEscrow.queryFilter(jobEscrow.filters.ResultsSubmitted(job.jobId))
      const submitter = String('args' in submitted[0] ? submitted[0].args.submitter : '').toLowerCase()
      const finalizer = devnet.peers.find((_, i) => devnet.peerAccount(i).address.toLowerCase() === submitter)

      // the faked MicroJob's output is an honest run's, correct like every other: the finalizer's own re-run, or another
      // honest peer's run of it whose work tag checks when there is one (docs/settlement.md, Work tags: a CI run saw
      // another peer's); the faker's only as the finalizer's own re-run (it fakes the first MicroJob it processes, and
      // re-runs honestly what it cannot fetch when it finalizes: runs of this test saw it finalize), never its fake
      const outputs = await client.results(job.jobId, { timeoutMs: 60_000 })
      expect(outputs).toHaveLength(16)
      const stand = outputs.find(o => `${o.macroIndex}.${o.index}` === faked)
      expect(finalizer).toBeDefined()
      expect(stand).toBeDefined()
      const fakerPeer = devnet.peers[0].peerId
      if (stand?.signer === fakerPeer) expect(finalizer?.peerId).toBe(fakerPeer)
      else expect(devnet.peers.slice(1).map(p => p.peerId)).toContain(stand?.signer)
      expect(matchesReference(outputs, IMAGE)).toBe(true)
    } finally {
      provider.destroy()
    }
  }, 480_000)
})

describe('end to end: the default verification level catches a fake exactly when its sample does', () => {
  let net: Network | undefined

  afterEach(async () => {
    await net?.stop()
    net = undefined
  })

  it('over 8 jobs each with one faked MicroJob: every rejection names the faker and slashes it, every release sampled elsewhere', async () => {
    // the faker fakes as a processor only (its verification re-runs are honest: a lone lying verifier is another
    // attack, covered by the contract tests). The rate (1/P of the fakes) is the sample's, checked over many draws in
    // protocol/validation.test.ts; what only real peers can show is that each fake is caught when the drawn sample
    // holds it, and missed only when it does not. The faker is the only processor (the others verify only,
    // `--no-process`) until it faked one MicroJob of every job: with honest processors beside it, the faker runs only
    // some of such small jobs (a peer joins a job on chain before it runs any of it; a CI run, when every peer took
    // up the same job first, saw it come late to 7 of 8 and fake 1).
    net = await startNetwork({
      peers: 4,
      peer: i => i === 0 ? { entry: { path: CHEATING_PEER, args: ['first-processed-per-job'] } } : { process: false }
    })
    const { client, devnet } = net
    const provider = createProvider(devnet.anvil.rpcUrl, { chainId: devnet.anvil.chainId })
    try {
      const { jobEscrow, nodeRegistry } = connect(devnet.deployment, provider)
      const faker = devnet.peerAccount(0).address
      const stake0 = BigInt((await nodeRegistry.nodeInfo(faker)).stake)
      const price = parseEther('0.1')
      const P = 4
      // 8 jobs of 2 x 4 MicroJobs, three verifiers each, the default level: one MicroJob per MacroJob per round
      const jobs = await Promise.all(Array.from({ length: 8 }, async () =>
        submitMandelbrot(client, { image: { ...IMAGE, height: 8 }, macroJobs: 2, microJobsPerMacro: P, price, verifiers: 3 })))
      for (const j of jobs) expect(j.samples).toBe(1)
      await waitFor(() => jobs.every(j => cheatedOn(devnet.peers[0].output, j.jobId) != null) ? true : undefined,
        { timeoutMs: 120_000, what: 'a faked MicroJob in every job', intervalMs: 250 })
      // a rejected job's next round is processed without its culprit: two processing peers join for those rounds
      await Promise.all([devnet.addPeer(), devnet.addPeer()])
      const releases = await Promise.all(jobs.map(async j => client.waitForRelease(j.jobId, { pollIntervalMs: 1000, timeoutMs: 240_000 })
        .catch(withHistory(devnet, j.jobId))))
      for (const r of releases) expect(r.status).toBe('Released')

      let faked = 0
      let detected = 0
      for (const j of jobs) {
        const cheated = cheatedOn(devnet.peers[0].output, j.jobId)
        const rejections = await jobEscrow.queryFilter(jobEscrow.filters.JobRejected(j.jobId))
        for (const e of rejections) expect('args' in e && String(e.args.culprit).toLowerCase()).toBe(faker.toLowerCase())
        if (cheated == null) throw new Error(`the faker, the only processor, faked nothing of job ${j.jobId}`)
        faked++
        if (rejections.length > 0) {
          detected++
          continue
        }
        // released in its first round with the fake unseen: the round's sample (still on chain) missed it, or what
        // counted there is an honest run of it (the faker's own, run again after a lease ran out: it fakes once a job)
        const [macro, index] = cheated.split('.').map(Number)
        if (Number(await jobEscrow.validationIndex(j.jobId, macro)) === index) {
          expect(matchesReference(await client.results(j.jobId, { timeoutMs: 60_000 }), { ...IMAGE, height: 8 })).toBe(true)
        }
      }
      console.info(`default level: ${detected} of ${faked} faked jobs detected (designed 1/${P})`)
      expect(faked).toBe(jobs.length)
      // each detection slashed the faker one bond (2 x the fee); as a verifier it may also have lost a share when it
      // was too slow for a window (on a loaded machine): those penalties are named on chain
      const penalties = await jobEscrow.queryFilter(jobEscrow.filters.VerifierPenalised(undefined, faker))
      const penalised = penalties.reduce((sum, e) => sum + ('args' in e ? BigInt(e.args.amount) : 0n), 0n)
      expect(BigInt((await nodeRegistry.nodeInfo(faker)).stake)).toBe(stake0 - BigInt(detected) * 2n * price - penalised)
    } finally {
      provider.destroy()
    }
  }, 360_000)
})

describe('end to end: a node that did no work submits first with a self-paying payout', () => {
  let net: Network | undefined

  afterEach(async () => {
    await net?.stop()
    net = undefined
  })

  it('gets nothing, is slashed, and the processors are paid', async () => {
    net = await startNetwork({ peers: 4 })
    const { client, devnet } = net
    const provider = createProvider(devnet.anvil.rpcUrl, { chainId: devnet.anvil.chainId, pollingInterval: 250 })
    const wasm = createWasmExecutor({ concurrency: 1 })
    let paused = false
    try {
      // the thief: a registered node that runs no peer and processes nothing
      const thief = new Wallet(devnet.anvil.accounts[8].privateKey, provider)
      const asThief = connect(devnet.deployment, thief)
      const proof = await signPeerBinding(peerKey(), devnet.deployment, thief.address)
      await (await asThief.nodeRegistry.register(proof.peerId, proof.publicKey, proof.signature, id('Any'), 16, { value: parseEther('10') })).wait()
      const { jobEscrow, nodeRegistry } = connect(devnet.deployment, provider)
      const stake0 = BigInt((await nodeRegistry.nodeInfo(thief.address)).stake)
      const balance0 = await provider.getBalance(thief.address)

      // the honest outputs are public (anyone can compute them from the job's code and data): the thief computes
      // them ahead, then submits them first with itself as the payee of every MicroJob
      const image = { ...IMAGE, height: 8 }
      const data = encodeMandelbrotData(image, 1)
      const code = await loadExampleWasm('mandelbrot')
      const job = await submitMandelbrot(client, { image, macroJobs: 2, microJobsPerMacro: 4, price: parseEther('1') })
      // the peers are paused (SIGSTOP) until the thief's result is on chain: on a fast machine they would otherwise
      // process these 8 MicroJobs and submit the honest result before the thief, and there would be nothing to test
      for (const p of devnet.peers) p.kill('SIGSTOP')
      paused = true
      const leaves: ResultLeaf[] = []
      for (const d of job.microJobs) {
        const input = data.subarray(d.start * MANDELBROT_BLOCK_SIZE, d.end * MANDELBROT_BLOCK_SIZE)
        const output = await wasm.run(code, input, { signal: AbortSignal.timeout(30_000) })
        leaves.push({ microId: d.microId, macroIndex: d.macroIndex, index: d.index, outputHash: outputHash(output), payee: thief.address })
      }
      const tree = resultTree(leaves)
      await (await asThief.jobEscrow.commitResults(job.jobId, resultCommitment(job.jobId, 0, tree.root, '', thief.address))).wait()
      await (await asThief.jobEscrow.submitResults(job.jobId, tree.root, '', [])).wait()
      for (const p of devnet.peers) p.kill('SIGCONT')
      paused = false
      // the thief draws and proves its own sample at once
      await waitFor(async () => (await provider.getBlockNumber()) >= (await jobEscrow.jobs(job.jobId)).submitBlock + 2n ? true : undefined, { timeoutMs: 30_000, what: 'the entropy block', intervalMs: 250 })
      await (await asThief.jobEscrow.selectVerifiers(job.jobId)).wait()
      // the sample is fixed once the drawn verifiers (honest peers) revealed their seeds
      const state = await waitFor(async () => {
        const s = await jobEscrow.jobs(job.jobId)
        return s.entropySet === true ? s : undefined
      }, { timeoutMs: 60_000, what: 'the sample entropy', intervalMs: 250 })
      const positions = samplePositions(state.seed, 2, 4, 1, state.sampleEntropy)
      const tuple = (l: ResultLeaf): [string, number, number, string, string] => [l.microId, l.macroIndex, l.index, l.outputHash, l.payee]
      await (await asThief.jobEscrow.proveSample(job.jobId, positions.map(p => tuple(leaves[p])), positions.map(p => tree.getProof(p)))).wait()
      // then it is gone, as a node without a peer soon is (its missed probes pause it): the next round draws its
      // verifiers among the peers, not a thief that would hold the round up to its seed and reveal deadlines
      await (await asThief.nodeRegistry.pause()).wait()

      // the verifiers see leaves paying a wallet that signed no result: rejected, the thief (the submitter) slashed
      const rejected = await waitFor(async () => {
        const events = await jobEscrow.queryFilter(jobEscrow.filters.JobRejected(job.jobId))
        return events.length > 0 ? events[0] : undefined
      }, { timeoutMs: 120_000, what: 'the JobRejected event', intervalMs: 250 })
      expect('args' in rejected && String(rejected.args.culprit)).toBe(thief.address)
      expect(BigInt((await nodeRegistry.nodeInfo(thief.address)).stake)).toBe(stake0 - 2n * parseEther('1'))
      // what of the bond the verifiers' shares left goes to the devnet's treasury, an account of its own: not to the
      // DApp, whose key deployed the contracts (so its holdings show only what its job moved)
      expect(BigInt(await jobEscrow.credits(devnet.treasury))).toBeGreaterThan(0n)
      expect(BigInt(await jobEscrow.credits(devnet.dapp.address))).toBe(0n)

      // the peers submit their own results next: released, the processors claim every leaf, the thief nothing
      expect((await client.waitForRelease(job.jobId, { pollIntervalMs: 500, timeoutMs: 120_000 })).status).toBe('Released')
      const payouts = await readPayouts({ rpcUrl: devnet.anvil.rpcUrl, deployment: devnet.deployment, jobId: job.jobId, timeoutMs: 60_000 })
      const pool = BigInt(await jobEscrow.processorPool(job.jobId))
      expect(payouts.reduce((a, p) => a + p.processor, 0n)).toBe(pool / 8n * 8n)
      const wallets = new Set(devnet.peers.map((_, i) => devnet.peerAccount(i).address.toLowerCase()))
      for (const p of payouts) expect(wallets.has(p.address.toLowerCase())).toBe(true)
      expect(payouts.some(p => p.address.toLowerCase() === thief.address.toLowerCase())).toBe(false)
      expect(await provider.getBalance(thief.address)).toBeLessThan(balance0)
    } finally {
      if (paused) for (const p of devnet.peers) p.kill('SIGCONT')
      await wasm.stop()
      provider.destroy()
    }
  }, 300_000)
})
