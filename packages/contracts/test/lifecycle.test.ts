// End-to-end settlement on a real anvil chain: deploy, register nodes, create a job with a real jobRoot, commit and
// submit results, draw verifiers, prove the sample, commit/reveal, settle (Released, then per-leaf claims), and a
// second job walked to a rejection (the culprit slashed a fee-sized bond, job reopened). Plus the bad-input paths,
// with the custom errors decoded. The protocol encodings (ids, leaves, positional result tree, sample, verifier
// digest) are built here with ethers straight from docs/protocol.md (the peer's protocol core lives upstream of this
// package); the job tree with the OpenZeppelin merkle-tree library.
import { createHash, generateKeyPairSync, sign } from 'node:crypto'
import { StandardMerkleTree } from '@openzeppelin/merkle-tree'
import { AbiCoder, Wallet, concat, hexlify, id as keccakUtf8, keccak256, parseEther } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testWallet, workerAnvil } from '@jobmesh/testkit/anvil'
import { connect, createProvider, decodeContractError, deploy, JobStatus, peerBindingMessage, rerunAllowanceMs, signPeerBinding } from '../src/index.js'
import type { Anvil, Deployment, JobmeshContracts, PeerBindingKey, PeerIdProof } from '../src/index.js'
import type { ContractTransactionResponse, JsonRpcProvider, TransactionReceipt } from 'ethers'

const abi = AbiCoder.defaultAbiCoder()

/** A PeerId key from node:crypto: Ed25519 with RFC 8032 signatures, as a libp2p peer's key. */
function peerKey (): PeerBindingKey {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519')
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x ?? '', 'base64url')
  return { type: 'Ed25519', publicKey: { raw }, sign: (data) => sign(null, data, privateKey) }
}
const GPU = keccakUtf8('RTX4090')
/** A node's verifier seed number `index` (a real node derives it from its wallet's signature). */
const seedOf = (address: string, index: number): string => keccakUtf8(`seed-${address}-${index}`)
const seedHash = (seed: string): string => keccak256(AbiCoder.defaultAbiCoder().encode(['bytes32'], [seed]))
const MIN_STAKE = parseEther('1')
const FEE = parseEther('0.1')
const MIN_FEE = 1000n
const ZERO32 = '0x' + '00'.repeat(32)

const macroId = (seed: bigint, jobId: string, m: number): string =>
  keccak256(abi.encode(['uint256', 'bytes32', 'uint256'], [seed, jobId, m]))
const microId = (seed: bigint, jobId: string, m: number, i: number): string =>
  keccak256(abi.encode(['uint256', 'bytes32', 'uint256'], [seed, macroId(seed, jobId, m), i]))
const jobIdOf = (creator: string, specCid: string, nonce: bigint): string =>
  keccak256(abi.encode(['address', 'string', 'uint256'], [creator, specCid, nonce]))
const validationIndex = (seed: bigint, m: number, entropy: string, per: number): number =>
  Number(BigInt(keccak256(abi.encode(['uint256', 'uint256', 'bytes32'], [seed, m, entropy]))) % BigInt(per))
// the verifiers' agreeing execution digest of their re-runs (a test value: nothing runs here)
const EXECUTION = keccak256(abi.encode(['string'], ['execution']))
const digestOf = (hashes: string[]): string => keccak256(abi.encode(['bytes32[]', 'bytes32'], [hashes, EXECUTION]))
const commitmentOf = (digest: string, blame: boolean, salt: string, sender: string): string =>
  keccak256(abi.encode(['bytes32', 'bool', 'bytes32', 'address'], [digest, blame, salt, sender]))
const resultCommitmentOf = (jobId: string, round: number, root: string, cid: string, sender: string): string =>
  keccak256(abi.encode(['bytes32', 'uint256', 'bytes32', 'string', 'address'], [jobId, round, root, cid, sender]))
const sha256 = (s: string): string => '0x' + createHash('sha256').update(s).digest('hex')

type Leaf = [string, number, number, string, string] // microId, macroIndex, index, outputHash, payee

const leafHash = (l: Leaf): string =>
  keccak256(keccak256(abi.encode(['bytes32', 'uint256', 'uint256', 'bytes32', 'address'], l)))

/** The positional result tree: leaves at their positions, zero-padded to a power of two, parent = keccak(l ++ r). */
function positionalTree (leaves: Leaf[]): { root: string, proof: (pos: number) => string[] } {
  const levels: string[][] = [leaves.map(leafHash)]
  let size = 1
  while (size < leaves.length) size *= 2
  while (levels[0].length < size) levels[0].push(ZERO32)
  while (levels[levels.length - 1].length > 1) {
    const below = levels[levels.length - 1]
    const next: string[] = []
    for (let i = 0; i < below.length; i += 2) next.push(keccak256(concat([below[i], below[i + 1]])))
    levels.push(next)
  }
  return {
    root: levels[levels.length - 1][0],
    proof: (pos) => levels.slice(0, -1).map((level, l) => level[(pos >> l) ^ 1])
  }
}

/** A job's slicing, its job tree, and a result tree built from `output(m, i)` and `payee(m, i)`. */
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
  const results = (output: (m: number, i: number) => string, payee: (m: number, i: number) => string) => {
    const leaves: Leaf[] = descriptors.map(([mid, m, i]) => [mid, m, i, sha256(output(m, i)), payee(m, i)])
    return { leaves, ...positionalTree(leaves) }
  }
  return { jobId, jobTree, results, seed, macroJobs, per, specCid, nonce }
}

const asStruct = (l: Leaf): { microId: string, macroIndex: number, index: number, outputHash: string, payee: string } =>
  ({ microId: l[0], macroIndex: l[1], index: l[2], outputHash: l[3], payee: l[4] })

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
  const nodeKeys: PeerIdProof[] = []
  const as = (w: Wallet): JobmeshContracts => connect(deployment, w)
  const mine = async (): Promise<void> => { await provider.send('evm_mine', []) }
  const deadline = async (): Promise<number> => (await provider.getBlock('latest'))!.timestamp + 86_400

  beforeAll(async () => {
    anvil = await workerAnvil({ accounts: 10 })
    provider = createProvider(anvil.rpcUrl, { chainId: anvil.chainId, pollingInterval: 50 })
    const wallets = anvil.accounts.map((a) => testWallet(a.privateKey, provider))
    creator = wallets[0]
    nodes = wallets.slice(1, 7)
    outsider = wallets[9]
    deployment = await deploy(creator, {
      registry: { minStake: MIN_STAKE, stakeCap: parseEther('10') },
      escrow: { minFee: MIN_FEE, commitWindow: 20, revealWindow: 20 }
    })
    for (const w of nodes) {
      const proof = await signPeerBinding(peerKey(), deployment, w.address)
      await ok(as(w).nodeRegistry.register(proof.peerId, proof.publicKey, proof.signature, GPU, 24, { value: MIN_STAKE }))
      nodeKeys.push(proof)
      await ok(as(w).jobEscrow.commitSeed(seedHash(seedOf(w.address, 0)), 0))
    }
  })

  /** The drawn verifiers reveal their committed seeds (each commits its next); the k-th fixes the sample. */
  async function revealSeeds (jobId: string, verifiers: Wallet[]): Promise<string> {
    for (const v of verifiers) {
      const index = Number((await as(v).jobEscrow.seedCommits(v.address)).index)
      await ok(as(v).jobEscrow.revealSeed(jobId, seedOf(v.address, index), seedHash(seedOf(v.address, index + 1))))
    }
    const j = await as(creator).jobEscrow.jobs(jobId)
    expect(j.entropySet).toBe(true)
    return j.sampleEntropy
  }

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

  const params = async (job: ReturnType<typeof buildJob>, extra: { gpuModel?: string, minVramGb?: number } = {}) => ({
    specCid: job.specCid,
    nonce: job.nonce,
    jobRoot: job.jobTree.root,
    seed: job.seed,
    macroJobs: job.macroJobs,
    microJobsPerMacro: job.per,
    minVramGb: extra.minVramGb ?? 0,
    gpuModel: extra.gpuModel ?? ZERO32,
    modelId: ZERO32,
    identicalHardware: false,
    k: 3,
    samples: 1,
    deadline: await deadline(),
    secondsPerMicroJob: 1
  })

  /** commitResults, a block, submitResults naming `payees`. */
  async function submit (w: Wallet, jobId: string, root: string, cid: string, payees: string[] = []): Promise<TransactionReceipt> {
    const round = Number((await as(w).jobEscrow.jobs(jobId)).rejections)
    await ok(as(w).jobEscrow.commitResults(jobId, resultCommitmentOf(jobId, round, root, cid, w.address)))
    return ok(as(w).jobEscrow.submitResults(jobId, root, cid, payees))
  }

  it('walks a job to Released and pays each result leaf and the verifiers', async () => {
    const job = buildJob(creator.address, 'bafy-spec-released', 1n, 0xC0FFEEn, 2, 3)
    const { jobEscrow } = as(creator)
    const created = await ok(jobEscrow.createJob(await params(job, { minVramGb: 16 }), { value: FEE }))
    expect(eventNames(jobEscrow, created)).toContain('JobCreated')
    expect(await jobEscrow.computeJobId(creator.address, job.specCid, job.nonce)).toBe(job.jobId)
    expect(Number(await jobEscrow.statusOf(job.jobId))).toBe(JobStatus.Open)

    // results: each MicroJob's leaf names the wallet paid for it (processors nodes[0] and nodes[1])
    const submitter = nodes[0]
    const payee = (m: number): string => m === 0 ? nodes[0].address : nodes[1].address
    const results = job.results((m, i) => `out-${m}-${i}`, payee)
    // a submission without its commitment in an earlier block is refused
    await reverts(as(submitter).jobEscrow.submitResults(job.jobId, results.root, 'bafy-manifest', []), 'NoResultCommit')
    // the other processor, which joined the job, is named: its bond is locked with the submitter's until the round ends
    await reverts(submit(submitter, job.jobId, results.root, 'bafy-manifest', [nodes[1].address]), 'PayeeNotJoined')
    await ok(as(nodes[1]).jobEscrow.joinJob(job.jobId))
    const submitted = await submit(submitter, job.jobId, results.root, 'bafy-manifest', [nodes[1].address])
    expect(eventNames(jobEscrow, submitted)).toContain('ResultsSubmitted')
    expect(await as(creator).nodeRegistry.lockedStake(submitter.address)).toBe(2n * FEE)
    expect(await as(creator).nodeRegistry.lockedStake(nodes[1].address)).toBe(2n * FEE)

    // entropy = hash of the block after the submission: not there yet
    await reverts(jobEscrow.selectVerifiers(job.jobId), 'TooEarly')
    await mine()
    const selected = await ok(jobEscrow.selectVerifiers(job.jobId))
    expect(eventNames(jobEscrow, selected)).toContain('VerifiersSelected')
    // the commit window the draw opened is what a processor bounds its runs by (rerunAllowanceMs), re-run by re-run
    const j = await jobEscrow.jobs(job.jobId)
    const p = await jobEscrow.params()
    const times = { commitWindowBlocks: Number(p.commitWindow), secondsPerBlock: Number(p.secondsPerBlock), maxRerunBlocks: Number(await jobEscrow.MAX_RERUN_BLOCKS()) }
    const reruns = Number(j.samples) * Number(j.macroJobs)
    expect(rerunAllowanceMs({ samples: Number(j.samples), macroJobs: Number(j.macroJobs), secondsPerMicroJob: Number(j.secondsPerMicroJob) }, times))
      .toBe(Math.floor((Number(j.commitDeadline) - Number(j.seedDeadline)) * times.secondsPerBlock * 1000 / reruns))
    const drawn = (await provider.getBlock(submitted.blockNumber + 1))!.hash!
    expect((await jobEscrow.jobs(job.jobId)).drawEntropy).toBe(drawn)
    const verifiers = (await jobEscrow.verifiersOf(job.jobId)).map((v) => nodes.find((w) => w.address === v.node)!)
    expect(verifiers).toHaveLength(3)
    expect(verifiers.map((v) => v.address)).not.toContain(submitter.address)
    // the sample is not fixed by the draw: the verifiers' seeds fix it
    expect((await jobEscrow.jobs(job.jobId)).entropySet).toBe(false)
    await reverts(jobEscrow.proveSample(job.jobId, [], []), 'SampleNotOpen')
    const entropy = await revealSeeds(job.jobId, verifiers)
    expect(entropy).not.toBe(drawn)

    // the sample: one MicroJob per MacroJob; anyone proves the submitted leaves at their positions
    const positions = Array.from({ length: job.macroJobs }, (_, m) => m * job.per + validationIndex(job.seed, m, entropy, job.per))
    const sampled = positions.map(pos => results.leaves[pos])
    await ok(jobEscrow.proveSample(job.jobId, sampled.map(asStruct), positions.map(pos => results.proof(pos))))
    const proven = sampled.map(leafHash)

    // the verifiers re-ran them: they expect the same leaves
    const salts = verifiers.map((_, n) => keccakUtf8(`salt-${n}`))
    for (const [n, v] of verifiers.entries()) {
      await ok(as(v).jobEscrow.commitVerification(job.jobId, commitmentOf(digestOf(proven), false, salts[n], v.address)))
    }
    await reverts(as(verifiers[0]).jobEscrow.commitVerification(job.jobId, ZERO32), 'AlreadyCommitted')
    const reveal = (n: number, salt: string): [string, boolean, string, string[], string[], ReturnType<typeof asStruct>] =>
      [salt, false, EXECUTION, proven, proven, asStruct(sampled[0])]
    await reverts(as(verifiers[0]).jobEscrow.revealVerification(job.jobId, reveal(0, keccakUtf8('wrong salt'))), 'RevealMismatch')
    for (const [n, v] of verifiers.entries()) await ok(as(v).jobEscrow.revealVerification(job.jobId, reveal(n, salts[n])))

    const settled = await ok(jobEscrow.settle(job.jobId))
    expect(eventNames(jobEscrow, settled)).toContain('JobReleased')
    expect(Number(await jobEscrow.statusOf(job.jobId))).toBe(JobStatus.Released)
    await ok(jobEscrow.settle(job.jobId)) // idempotent

    // anyone sends the claims; each leaf pays its payee pool / 6
    const each = (await jobEscrow.processorPool(job.jobId)) / 6n
    const before = await provider.getBalance(nodes[1].address)
    await ok(as(outsider).jobEscrow.claim(job.jobId, results.leaves.slice(3).map(asStruct), [3, 4, 5].map(pos => results.proof(pos))))
    expect(await provider.getBalance(nodes[1].address) - before).toBe(3n * each)
    await reverts(jobEscrow.claim(job.jobId, [asStruct(results.leaves[3])], [results.proof(3)]), 'AlreadyClaimed')
    // a leaf paying someone else is not in the tree
    await reverts(jobEscrow.claim(job.jobId, [asStruct([...results.leaves[0].slice(0, 4), outsider.address] as Leaf)], [results.proof(0)]), 'InvalidProof')
    expect(await jobEscrow.isClaimed(job.jobId, 3)).toBe(true)
    expect(await jobEscrow.isClaimed(job.jobId, 0)).toBe(false)

    // verifiers were paid one share each into credits, and are free again
    const share = await jobEscrow.verifierShare(job.jobId)
    for (const v of verifiers) {
      expect(await jobEscrow.credits(v.address)).toBe(share)
      expect(await as(v).nodeRegistry.isEligible(v.address)).toBe(true)
    }
    await ok(as(verifiers[0]).jobEscrow.withdrawCredit())
    expect(await jobEscrow.credits(verifiers[0].address)).toBe(0n)
    expect(await as(creator).nodeRegistry.lockedStake(submitter.address)).toBe(0n)
    expect(await as(creator).nodeRegistry.lockedStake(nodes[1].address)).toBe(0n)

    // wrong state: no second submission on a released job
    await reverts(as(nodes[1]).jobEscrow.commitResults(job.jobId, keccakUtf8('c')), 'WrongStatus')
  })

  it('rejects a submission whose sample does not match the verifiers, slashes the culprit and reopens', async () => {
    const job = buildJob(creator.address, 'bafy-spec-rejected', 2n, 777n, 3, 2)
    const { jobEscrow, nodeRegistry } = as(creator)
    await ok(jobEscrow.createJob(await params(job, { gpuModel: GPU }), { value: FEE }))

    // a cheating submitter: every output is wrong, every leaf pays itself
    const cheater = nodes[5]
    const bad = job.results((m, i) => `garbage-${m}-${i}`, () => cheater.address)
    await submit(cheater, job.jobId, bad.root, 'bafy-bad')
    await mine()
    await ok(jobEscrow.selectVerifiers(job.jobId))
    const verifiers = (await jobEscrow.verifiersOf(job.jobId)).map((v) => nodes.find((w) => w.address === v.node)!)
    const entropy = await revealSeeds(job.jobId, verifiers)
    expect(verifiers.map((v) => v.address)).not.toContain(cheater.address)

    const positions = Array.from({ length: job.macroJobs }, (_, m) => m * job.per + validationIndex(job.seed, m, entropy, job.per))
    const honest = job.results((m, i) => `out-${m}-${i}`, () => nodes[0].address)
    const expected = positions.map(pos => leafHash(honest.leaves[pos]))
    const salt = keccakUtf8('s')
    for (const v of verifiers) await ok(as(v).jobEscrow.commitVerification(job.jobId, commitmentOf(digestOf(expected), false, salt, v.address)))
    await reverts(as(cheater).jobEscrow.proveSample(job.jobId, [], []), 'WrongSampleLength')
    const sampled = positions.map(pos => bad.leaves[pos])
    await ok(as(cheater).jobEscrow.proveSample(job.jobId, sampled.map(asStruct), positions.map(pos => bad.proof(pos))))
    const proven = sampled.map(leafHash)
    for (const v of verifiers) {
      await ok(as(v).jobEscrow.revealVerification(job.jobId, [salt, false, EXECUTION, expected, proven, asStruct(sampled[0])]))
    }

    const stakeBefore = (await nodeRegistry.nodeInfo(cheater.address)).stake
    const creditsBefore = await Promise.all(verifiers.map(async v => jobEscrow.credits(v.address)))
    const settled = await ok(jobEscrow.settle(job.jobId))
    const names = eventNames(jobEscrow, settled)
    expect(names).toContain('JobRejected')
    expect(names).toContain('JobReopened')
    const rejected = settled.logs.map((l) => jobEscrow.interface.parseLog(l)).find((e) => e?.name === 'JobRejected')!
    expect(rejected.args.culprit).toBe(cheater.address)
    expect(rejected.args.slashed).toBe(2n * FEE) // the bond: 2 x the fee, not a share of the stake
    expect((await nodeRegistry.nodeInfo(cheater.address)).stake).toBe(stakeBefore - 2n * FEE)

    // reopened: Open again, submission cleared
    const after = await jobEscrow.jobs(job.jobId)
    expect(Number(after.status)).toBe(JobStatus.Open)
    expect(after.rejections).toBe(1n)
    expect(after.submitter).toBe('0x' + '00'.repeat(20))
    // the verifiers that found the fault get one share each, paid from the slash (the rest to the treasury)
    const share = await jobEscrow.verifierShare(job.jobId)
    for (const [n, v] of verifiers.entries()) expect(await jobEscrow.credits(v.address) - creditsBefore[n]).toBe(share)
    await reverts(jobEscrow.claim(job.jobId, [], []), 'WrongStatus')

    await submit(nodes[0], job.jobId, honest.root, 'bafy-good')
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
      samples: 1,
      deadline: await deadline(),
      secondsPerMicroJob: 1
    }
    // underfunded job (each verifier's share >= MIN_FEE: fee >= MIN_FEE * (1 + 3) / 1): the contract's own interface decodes it too
    try {
      await jobEscrow.createJob(params, { value: MIN_FEE - 1n })
      expect.unreachable()
    } catch (err) {
      const data = decodeContractError(err)!.data
      const parsed = jobEscrow.interface.parseError(data)
      expect(parsed?.name).toBe('UnderfundedJob')
      expect(parsed?.args.toArray()).toEqual([MIN_FEE - 1n, 4n * MIN_FEE])
    }
    expect(await reverts(jobEscrow.createJob({ ...params, k: 99 }, { value: FEE }), 'InvalidVerifierCount')).toEqual([99n, 3n, 7n])
    // one verifier alone would decide who is slashed: refused
    expect(await reverts(jobEscrow.createJob({ ...params, k: 1 }, { value: FEE }), 'InvalidVerifierCount')).toEqual([1n, 3n, 7n])
    // an even k can tie, and a tie restarts the round with nobody slashed: refused
    expect(await reverts(jobEscrow.createJob({ ...params, k: 4 }, { value: FEE }), 'EvenVerifierCount')).toEqual([4n])

    await ok(jobEscrow.createJob(params, { value: FEE }))
    await reverts(jobEscrow.createJob(params, { value: FEE }), 'JobExists')
    // unregistered submitter
    const root = keccakUtf8('r')
    expect(await reverts(as(outsider).jobEscrow.commitResults(job.jobId, root), 'NotActiveNode')).toEqual([outsider.address])
    // wrong state: verifiers cannot be drawn for an Open job; unknown jobs are refused
    await reverts(jobEscrow.selectVerifiers(job.jobId), 'WrongStatus')
    await reverts(jobEscrow.settle(keccakUtf8('no such job')), 'UnknownJob')
    // registry inputs
    const register = (from: Wallet, p: PeerIdProof, value = MIN_STAKE): Promise<ContractTransactionResponse> =>
      as(from).nodeRegistry.register(p.peerId, p.publicKey, p.signature, GPU, 24, { value })
    const fresh = await signPeerBinding(peerKey(), deployment, outsider.address)
    await reverts(register(nodes[0], await signPeerBinding(peerKey(), deployment, nodes[0].address)), 'AlreadyRegistered')
    await reverts(register(outsider, { ...fresh, peerId: nodeKeys[0].peerId }), 'PeerIdTaken')
    await reverts(register(outsider, fresh, MIN_STAKE - 1n), 'InsufficientStake')
    // the PeerId proof: the message the contract checks is the one signed here; another's proof or key fails
    expect(await nodeRegistry.peerBindingMessage(outsider.address)).toBe(hexlify(peerBindingMessage(deployment, outsider.address)))
    await reverts(register(outsider, await signPeerBinding(peerKey(), deployment, nodes[5].address)), 'BadPeerIdProof')
    await reverts(register(outsider, { ...fresh, peerId: (await signPeerBinding(peerKey(), deployment, outsider.address)).peerId }), 'PeerIdKeyMismatch')
    await reverts(nodeRegistry.setEscrow(outsider.address), 'EscrowAlreadySet')
  })
})
