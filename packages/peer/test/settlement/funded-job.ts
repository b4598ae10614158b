import { testJob } from '@jobmesh/testkit'
import { keccak256, parseEther, toUtf8Bytes } from 'ethers'
import { createPeer } from '../../src/peer.js'
import { computeJobId, encodeJobSpec, parseJobSpec } from '../../src/protocol/index.js'
import { rawBlockCid } from '../../src/storage/index.js'
import type { JobSpec } from '../../src/protocol/index.js'
import type { Peer, PeerInit } from '../../src/peer.js'
import type { ChainClient } from '@jobmesh/contracts'
import type { TestChain } from '@jobmesh/testkit/anvil'

/**
 * A job of `creator` funded on chain as the SDK creates one: a spec (a test job's, 1 MacroJob of 2 MicroJobs,
 * `verifiers` k, an estimate of 1 s per MicroJob) whose canonical bytes' CID is the `specCid` the escrow records. Its
 * code is `codeUri` (default a CID nobody serves); its run-time hint on chain `secondsPerMicroJob` (default 1, as the SDK
 * sets it for that estimate); its deadline `deadline` (unix ms, default an hour from now); the VRAM it needs
 * `minVramGb` (default 1).
 */
export async function fundJob (creator: ChainClient, init: JobToFundInit = {}): Promise<{ jobId: string, spec: JobSpec, specCid: string }> {
  const { spec, specCid, fund } = await jobToFund(creator, init)
  return { jobId: await fund(), spec, specCid }
}

export interface JobToFundInit { verifiers?: number, nonce?: bigint, codeUri?: string, secondsPerMicroJob?: number, deadline?: number, minVramGb?: number }

/**
 * The job {@link fundJob} funds, with its jobId (as the escrow will compute it), not funded yet: `fund()` funds it and
 * answers the jobId as the escrow's client returns it.
 */
export async function jobToFund (creator: ChainClient, init: JobToFundInit = {}): Promise<{ jobId: string, spec: JobSpec, specCid: string, fund(): Promise<string> }> {
  const input = testJob(1, 2, { minVramGb: init.minVramGb ?? 1 }).input
  const fee = 10n ** 16n
  const spec = parseJobSpec({
    ...input,
    price: fee,
    codeUri: init.codeUri ?? input.codeUri,
    creator: await creator.address(),
    verifiers: init.verifiers ?? 3,
    deadline: init.deadline ?? Date.now() + 3_600_000
  })
  // the CID the SDK's upload gives the spec (one raw block, as `addRaw` stores it)
  const specCid = rawBlockCid(encodeJobSpec(spec)).toString()
  const nonce = init.nonce ?? 1n
  const jobId = computeJobId(spec.creator, specCid, nonce)
  const fund = async (): Promise<string> => {
    const created = await creator.createJob({
      specCid, nonce, jobRoot: keccak256(toUtf8Bytes(`jobs ${specCid}`)), seed: spec.seed, macroJobs: 1, microJobsPerMacro: 2,
      minVramGb: spec.requirements.minVramGb, k: spec.verifiers, deadline: Math.ceil(spec.deadline / 1000), secondsPerMicroJob: init.secondsPerMicroJob ?? 1
    }, fee)
    if (created.jobId.toLowerCase() !== jobId.toLowerCase()) throw new Error(`the escrow created ${created.jobId}, expected ${jobId}`)
    return created.jobId
  }
  return { jobId, spec, specCid, fund }
}

/** A peer on `chain` with anvil account 1's wallet (cpu, 1 GB, a stake of 0.1 ETH), as a test of the job gates runs one. */
export async function chainPeer (chain: TestChain, init: Partial<PeerInit> = {}): Promise<Peer> {
  return await createPeer({
    listen: ['/ip4/127.0.0.1/tcp/0'],
    gpuModel: 'cpu',
    vramGb: 1,
    chain: { rpcUrl: chain.anvil.rpcUrl, privateKey: chain.anvil.accounts[1].privateKey, deployment: chain.deployment, stake: parseEther('0.1') },
    ...init
  })
}

/**
 * A job funded by `creator` whose code `peer` serves itself (preparing it fetches nothing, so only the gates can hold
 * it back), announced to `peer`; `owned` fills with the jobs of the MacroJobs the peer comes to own.
 */
export async function announceServedJob (peer: Peer, creator: ChainClient, verifiers: number): Promise<{ job: Awaited<ReturnType<typeof fundJob>>, owned: string[] }> {
  const owned: string[] = []
  peer.processor?.addEventListener('ownership', (evt) => { owned.push(evt.detail.jobId) })
  const code = await peer.store.addRaw(new TextEncoder().encode('code of the job'))
  const job = await fundJob(creator, { verifiers, codeUri: `ipfs://${code}` })
  await peer.processor?.announceJob(job.spec, job.jobId, job.specCid)
  return { job, owned }
}
