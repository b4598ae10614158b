// End-to-end settlement on a real anvil chain: deploy, register nodes, create a job with a real jobRoot, submit,
// draw verifiers, commit/reveal, prove the sample, settle (Released, then claims), and a second job walked to a
// rejection (slash, reopen). Plus the bad-input paths, with the custom errors decoded.
// The protocol encodings (ids, leaves, sample, verifier hash) are built here with the OpenZeppelin merkle-tree
// library straight from docs/protocol.md (the peer's protocol core lives upstream of this package).
import { createHash } from 'node:crypto'
import { StandardMerkleTree } from '@openzeppelin/merkle-tree'
import { AbiCoder, Wallet, id as keccakUtf8, keccak256, parseEther } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect, createProvider, decodeContractError, deploy, JobStatus, startAnvil } from '../src/index.js'
import type { Anvil, Deployment, JobmeshContracts } from '../src/index.js'
import type { ContractTransactionResponse, JsonRpcProvider, TransactionReceipt } from 'ethers'

const abi = AbiCoder.defaultAbiCoder()
const GPU = keccakUtf8('RTX4090')
const MIN_STAKE = parseEther('1')
const FEE = parseEther('1')
const MIN_FEE = 1000n

const macroId = (seed: bigint, jobId: string, m: number): string =>
  keccak256(abi.encode(['uint256', 'bytes32', 'uint256'], [seed, jobId, m]))
const microId = (seed: bigint, jobId: string, m: number, i: number): string =>
  keccak256(abi.encode(['uint256', 'bytes32', 'uint256'], [seed, macroId(seed, jobId, m), i]))
const jobIdOf = (creator: string, specCid: string, nonce: bigint): string =>
  keccak256(abi.encode(['address', 'string', 'uint256'], [creator, specCid, nonce]))
const validationIndex = (seed: bigint, m: number, entropy: string, per: number): number =>
  Number(BigInt(keccak256(abi.encode(['uint256', 'uint256', 'bytes32'], [seed, m, entropy]))) % BigInt(per))
const verifierHashOf = (hashes: string[]): string => keccak256(abi.encode(['bytes32[]'], [hashes]))
const commitmentOf = (vh: string, salt: string, sender: string): string =>
  keccak256(abi.encode(['bytes32', 'bytes32', 'address'], [vh, salt, sender]))
const sha256 = (s: string): string => '0x' + createHash('sha256').update(s).digest('hex')

/** A job's slicing, its job tree, and a result tree built from `output(m, i)`. */
function buildJob (creator: string, specCid: string, nonce: bigint, seed: bigint, macroJobs: number, per: number) {
  const jobId = jobIdOf(creator, specCid, nonce)
  const descriptors: Array<[string, number, number, number, number]> = []
  for (let m = 0; m < macroJobs; m++) {
    for (let i = 0; i < per; i++) {
      const start = (m * per + i) * 4
      descriptors.push([microId(seed, jobId, m, i), m, i, start, start + 4])
    }
  }
  const jobTree = StandardMerkleTree.of(descriptors, ['bytes32', 'uint256', 'uint256', 'uint256', 'uint256'])
  const results = (output: (m: number, i: number) => string) => {
    const leaves: Array<[string, number, number, string]> =
      descriptors.map(([mid, m, i]) => [mid, m, i, sha256(output(m, i))])
    return StandardMerkleTree.of(leaves, ['bytes32', 'uint256', 'uint256', 'bytes32'])
  }
  return { jobId, jobTree, results, seed, macroJobs, per, specCid, nonce }
}

/** Sends a transaction and waits for a successful receipt. */
async function ok (tx: Promise<ContractTransactionResponse>): Promise<TransactionReceipt> {
  const receipt = await (await tx).wait()
  if (receipt === null || receipt.status !== 1) throw new Error('transaction failed')
  return receipt
}

/** Expects a revert with the named custom error; returns the decoded arguments. */
async function reverts (p: Promise<unknown>, name: string): Promise<readonly unknown[]> {
  try {
    await p
  } catch (err) {
    const decoded = decodeContractError(err)
    expect(decoded?.name, `expected ${name}, got ${String((err as Error).message).slice(0, 300)}`).toBe(name)
    return decoded?.args.toArray() ?? []
  }
  throw new Error(`expected a revert with ${name}, but the call succeeded`)
}

function eventNames (c: JobmeshContracts['jobEscrow'], receipt: TransactionReceipt): string[] {
  return receipt.logs.map((l) => c.interface.parseLog(l)?.name).filter((n): n is string => n != null)
}

describe('settlement lifecycle on anvil', () => {
  let anvil: Anvil
  let provider: JsonRpcProvider
  let deployment: Deployment
  let creator: Wallet
  let nodes: Wallet[]
  let outsider: Wallet
  const as = (w: Wallet): JobmeshContracts => connect(deployment, w)
  const mine = async (): Promise<void> => { await provider.send('evm_mine', []) }
  const deadline = async (): Promise<number> => (await provider.getBlock('latest'))!.timestamp + 86_400

  beforeAll(async () => {
    anvil = await startAnvil({ accounts: 10 })
    provider = createProvider(anvil.rpcUrl, { chainId: anvil.chainId, pollingInterval: 50 })
    const wallets = anvil.accounts.map((a) => new Wallet(a.privateKey, provider))
    creator = wallets[0]
    nodes = wallets.slice(1, 7)
    outsider = wallets[9]
    deployment = await deploy(creator, {
      registry: { minStake: MIN_STAKE, stakeCap: parseEther('10') },
      escrow: { minFee: MIN_FEE, commitWindow: 20, revealWindow: 20 }
    })
    for (const [i, w] of nodes.entries()) {
      await ok(as(w).nodeRegistry.register(`12D3KooW-node-${i}`, GPU, 24, { value: MIN_STAKE }))
    }
  })

  afterAll(async () => {
    provider?.destroy()
    await anvil?.stop()
  })

  it('deployed and wired both contracts', async () => {
    const { nodeRegistry, jobEscrow } = as(creator)
    expect(deployment.chainId).toBe(anvil.chainId)
    expect(await nodeRegistry.escrow()).toBe(deployment.jobEscrow)
    expect(await jobEscrow.registry()).toBe(deployment.nodeRegistry)
    expect(await nodeRegistry.activeNodes()).toBe(BigInt(nodes.length))
    const info = await nodeRegistry.nodeInfo(nodes[0].address)
    expect(info.registered).toBe(true)
    expect(info.eligible).toBe(true)
    expect(info.stake).toBe(MIN_STAKE)
  })

  it('walks a job to Released and pays processors and verifiers', async () => {
    const job = buildJob(creator.address, 'bafy-spec-released', 1n, 0xC0FFEEn, 2, 3)
    const { jobEscrow } = as(creator)
    const created = await ok(jobEscrow.createJob({
      specCid: job.specCid,
      nonce: job.nonce,
      jobRoot: job.jobTree.root,
      seed: job.seed,
      macroJobs: job.macroJobs,
      microJobsPerMacro: job.per,
      minVramGb: 16,
      gpuModel: '0x' + '00'.repeat(32),
      modelId: '0x' + '00'.repeat(32),
      identicalHardware: false,
      k: 3,
      deadline: await deadline(),
      secondsPerMicroJob: 10
    }, { value: FEE }))
    expect(eventNames(jobEscrow, created)).toContain('JobCreated')
    expect(await jobEscrow.computeJobId(creator.address, job.specCid, job.nonce)).toBe(job.jobId)
    expect(Number(await jobEscrow.statusOf(job.jobId))).toBe(JobStatus.Open)
    expect((await jobEscrow.jobs(job.jobId)).jobRoot).toBe(job.jobTree.root)

    // the submitter's results and the processors' payout tree
    const submitter = nodes[0]
    const resultTree = job.results((m, i) => `out-${m}-${i}`)
    const pool = await jobEscrow.processorPool(job.jobId)
    const payouts: Array<[string, bigint]> = [[submitter.address, pool / 2n], [nodes[1].address, pool / 4n]]
    const payoutTree = StandardMerkleTree.of(payouts, ['address', 'uint256'])
    const submitted = await ok(as(submitter).jobEscrow.submitResults(job.jobId, resultTree.root, payoutTree.root, 'bafy-manifest'))
    expect(eventNames(jobEscrow, submitted)).toContain('ResultsSubmitted')

    // entropy = hash of the block after the submission: not there yet
    await reverts(jobEscrow.selectVerifiers(job.jobId), 'TooEarly')
    await mine()
    const selected = await ok(jobEscrow.selectVerifiers(job.jobId))
    expect(eventNames(jobEscrow, selected)).toContain('VerifiersSelected')
    const entropy = (await provider.getBlock(submitted.blockNumber + 1))!.hash!
    expect((await jobEscrow.jobs(job.jobId)).sampleEntropy).toBe(entropy)

    const verifiers = (await jobEscrow.verifiersOf(job.jobId)).map((v) => nodes.find((w) => w.address === v.node)!)
    expect(verifiers).toHaveLength(3)
    expect(new Set(verifiers.map((v) => v.address)).size).toBe(3)
    expect(verifiers.map((v) => v.address)).not.toContain(submitter.address)

    // the sampled MicroJob of each MacroJob, re-run by the verifiers
    const sampled = Array.from({ length: job.macroJobs }, (_, m) => validationIndex(job.seed, m, entropy, job.per))
    for (const [m, idx] of sampled.entries()) expect(await jobEscrow.validationIndex(job.jobId, m)).toBe(BigInt(idx))
    const vh = verifierHashOf(sampled.map((i, m) => sha256(`out-${m}-${i}`)))
    const salts = verifiers.map((_, n) => keccakUtf8(`salt-${n}`))

    for (const [n, v] of verifiers.entries()) {
      await ok(as(v).jobEscrow.commitVerification(job.jobId, commitmentOf(vh, salts[n], v.address)))
    }
    await reverts(as(verifiers[0]).jobEscrow.commitVerification(job.jobId, commitmentOf(vh, salts[0], verifiers[0].address)), 'AlreadyCommitted')
    // a reveal that does not match the commitment
    await reverts(as(verifiers[0]).jobEscrow.revealVerification(job.jobId, vh, keccakUtf8('wrong salt')), 'RevealMismatch')
    for (const [n, v] of verifiers.entries()) {
      await ok(as(v).jobEscrow.revealVerification(job.jobId, vh, salts[n]))
    }

    // the submitter proves its claimed outputs of the sampled MicroJobs against resultRoot
    const entries = [...resultTree.entries()]
    const sampleLeaves = sampled.map((idx, m) => entries.find(([, l]) => Number(l[1]) === m && Number(l[2]) === idx)!)
    await ok(as(submitter).jobEscrow.proveSample(
      job.jobId,
      sampleLeaves.map(([, l]) => ({ microId: l[0], macroIndex: l[1], index: l[2], outputHash: l[3] })),
      sampleLeaves.map(([i]) => resultTree.getProof(i))
    ))

    const settled = await ok(jobEscrow.settle(job.jobId))
    expect(eventNames(jobEscrow, settled)).toContain('JobReleased')
    expect(Number(await jobEscrow.statusOf(job.jobId))).toBe(JobStatus.Released)
    await ok(jobEscrow.settle(job.jobId)) // idempotent

    // processors claim with proofs; anyone may send the claim, the payee gets the funds
    for (const [i, [payee, amount]] of payoutTree.entries()) {
      const before = await provider.getBalance(payee)
      await ok(jobEscrow.claim(job.jobId, payee, amount, payoutTree.getProof(i)))
      expect(await provider.getBalance(payee) - before).toBe(amount)
    }
    await reverts(jobEscrow.claim(job.jobId, payouts[0][0], payouts[0][1], payoutTree.getProof(0)), 'AlreadyClaimed')
    await reverts(jobEscrow.claim(job.jobId, outsider.address, 1n, payoutTree.getProof(0)), 'InvalidProof')

    // verifiers were paid into credits, and are free again
    for (const v of verifiers) {
      expect(await jobEscrow.credits(v.address)).toBeGreaterThan(0n)
      expect(await as(v).nodeRegistry.isEligible(v.address)).toBe(true)
    }
    await ok(as(verifiers[0]).jobEscrow.withdrawCredit())
    expect(await jobEscrow.credits(verifiers[0].address)).toBe(0n)

    // wrong state: no second submission on a released job
    await reverts(as(nodes[1]).jobEscrow.submitResults(job.jobId, resultTree.root, payoutTree.root, 'x'), 'WrongStatus')
  })

  it('rejects a submission whose sample does not match the verifiers, slashes and reopens', async () => {
    const job = buildJob(creator.address, 'bafy-spec-rejected', 2n, 777n, 3, 2)
    const { jobEscrow, nodeRegistry } = as(creator)
    await ok(jobEscrow.createJob({
      specCid: job.specCid,
      nonce: job.nonce,
      jobRoot: job.jobTree.root,
      seed: job.seed,
      macroJobs: job.macroJobs,
      microJobsPerMacro: job.per,
      minVramGb: 0,
      gpuModel: GPU,
      modelId: '0x' + '00'.repeat(32),
      identicalHardware: false,
      k: 3,
      deadline: await deadline(),
      secondsPerMicroJob: 5
    }, { value: FEE }))

    // a cheating submitter: every output is wrong
    const cheater = nodes[5]
    const badTree = job.results((m, i) => `garbage-${m}-${i}`)
    const payoutTree = StandardMerkleTree.of([[cheater.address, 1n]], ['address', 'uint256'])
    const submitted = await ok(as(cheater).jobEscrow.submitResults(job.jobId, badTree.root, payoutTree.root, 'bafy-bad'))
    await mine()
    await ok(jobEscrow.selectVerifiers(job.jobId))
    const entropy = (await provider.getBlock(submitted.blockNumber + 1))!.hash!
    const verifiers = (await jobEscrow.verifiersOf(job.jobId)).map((v) => nodes.find((w) => w.address === v.node)!)
    expect(verifiers.map((v) => v.address)).not.toContain(cheater.address)

    const sampled = Array.from({ length: job.macroJobs }, (_, m) => validationIndex(job.seed, m, entropy, job.per))
    const honest = verifierHashOf(sampled.map((i, m) => sha256(`out-${m}-${i}`)))
    const salt = keccakUtf8('s')
    for (const v of verifiers) await ok(as(v).jobEscrow.commitVerification(job.jobId, commitmentOf(honest, salt, v.address)))
    // the sample can only be proven once the commit phase is over; a wrong-length sample is refused
    await reverts(as(cheater).jobEscrow.proveSample(job.jobId, [], []), 'WrongSampleLength')
    for (const v of verifiers) await ok(as(v).jobEscrow.revealVerification(job.jobId, honest, salt))

    const entries = [...badTree.entries()]
    const leaves = sampled.map((idx, m) => entries.find(([, l]) => Number(l[1]) === m && Number(l[2]) === idx)!)
    await ok(as(cheater).jobEscrow.proveSample(
      job.jobId,
      leaves.map(([, l]) => ({ microId: l[0], macroIndex: l[1], index: l[2], outputHash: l[3] })),
      leaves.map(([i]) => badTree.getProof(i))
    ))
    expect((await jobEscrow.jobs(job.jobId)).claimedHash).not.toBe(honest)

    const stakeBefore = (await nodeRegistry.nodeInfo(cheater.address)).stake
    const settled = await ok(jobEscrow.settle(job.jobId))
    const names = eventNames(jobEscrow, settled)
    expect(names).toContain('JobRejected')
    expect(names).toContain('JobReopened')
    const slashed = settled.logs.map((l) => jobEscrow.interface.parseLog(l)).find((e) => e?.name === 'JobRejected')!.args.slashed as bigint
    expect(slashed).toBe(stakeBefore / 2n)
    expect((await nodeRegistry.nodeInfo(cheater.address)).stake).toBe(stakeBefore - slashed)

    // reopened: Open again, submission cleared, anyone registered can submit anew
    const after = await jobEscrow.jobs(job.jobId)
    expect(Number(after.status)).toBe(JobStatus.Open)
    expect(after.rejections).toBe(1n)
    expect(after.submitter).toBe('0x' + '00'.repeat(20))
    // the dissenting verifiers share the slashed stake
    for (const v of verifiers) expect(await jobEscrow.credits(v.address)).toBeGreaterThan(0n)
    // wrong state: nothing to claim on a job that is not Released
    await reverts(jobEscrow.claim(job.jobId, cheater.address, 1n, payoutTree.getProof(0)), 'WrongStatus')

    const goodTree = job.results((m, i) => `out-${m}-${i}`)
    await ok(as(nodes[0]).jobEscrow.submitResults(job.jobId, goodTree.root, payoutTree.root, 'bafy-good'))
    expect(Number(await jobEscrow.statusOf(job.jobId))).toBe(JobStatus.Submitted)
  })

  it('refuses bad input with decoded custom errors', async () => {
    const { jobEscrow, nodeRegistry } = as(creator)
    const job = buildJob(creator.address, 'bafy-spec-bad', 3n, 1n, 1, 1)
    const params = {
      specCid: job.specCid,
      nonce: job.nonce,
      jobRoot: job.jobTree.root,
      seed: job.seed,
      macroJobs: 1,
      microJobsPerMacro: 1,
      minVramGb: 0,
      gpuModel: '0x' + '00'.repeat(32),
      modelId: '0x' + '00'.repeat(32),
      identicalHardware: false,
      k: 3,
      deadline: await deadline(),
      secondsPerMicroJob: 1
    }
    // underfunded job: the contract's own interface decodes it too
    try {
      await jobEscrow.createJob(params, { value: MIN_FEE - 1n })
      expect.unreachable()
    } catch (err) {
      const data = decodeContractError(err)!.data
      const parsed = jobEscrow.interface.parseError(data)
      expect(parsed?.name).toBe('UnderfundedJob')
      expect(parsed?.args.toArray()).toEqual([MIN_FEE - 1n, MIN_FEE])
    }
    expect(await reverts(jobEscrow.createJob({ ...params, k: 99 }, { value: FEE }), 'InvalidVerifierCount')).toEqual([99n, 15n])

    await ok(jobEscrow.createJob(params, { value: FEE }))
    await reverts(jobEscrow.createJob(params, { value: FEE }), 'JobExists')
    // unregistered submitter
    const root = keccakUtf8('r')
    expect(await reverts(as(outsider).jobEscrow.submitResults(job.jobId, root, root, 'm'), 'NotActiveNode')).toEqual([outsider.address])
    // wrong state: verifiers cannot be drawn for an Open job; unknown jobs are refused
    await reverts(jobEscrow.selectVerifiers(job.jobId), 'WrongStatus')
    await reverts(jobEscrow.settle(keccakUtf8('no such job')), 'UnknownJob')
    // registry inputs
    await reverts(as(nodes[0]).nodeRegistry.register('again', GPU, 24, { value: MIN_STAKE }), 'AlreadyRegistered')
    await reverts(as(outsider).nodeRegistry.register('12D3KooW-node-0', GPU, 24, { value: MIN_STAKE }), 'PeerIdTaken')
    await reverts(as(outsider).nodeRegistry.register('fresh', GPU, 24, { value: MIN_STAKE - 1n }), 'InsufficientStake')
    await reverts(nodeRegistry.setEscrow(outsider.address), 'EscrowAlreadySet')
  })
})
