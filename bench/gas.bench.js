#!/usr/bin/env node
// Gas of the settlement operations against a NodeRegistry holding N real registered nodes.
//
//   node bench/gas.bench.js                       N = 10, 100, 1 000, 10 000, 100 000
//   JOBMESH_GAS_NODES=10,1000 node bench/gas.bench.js
//   JOBMESH_GAS_GROUP_NODES=1000 node bench/gas.bench.js   (the groups row; '' skips it; default 100 000)
//
// Method (honest: every number is the gasUsed of a real transaction receipt on a real chain):
// - A local anvil (--disable-block-gas-limit, --auto-impersonate) with the compiled contracts deployed by deploy().
// - Nodes 0..N-2 are registered in bulk: each is its own address (impersonated, funded with anvil_setBalance)
//   sending its own `register` transaction with its own stake and its own PeerId proof (a fresh node:crypto Ed25519
//   key signs the binding; the registry verifies it, ~1.2M gas a node, so N = 100 000 takes a while); automine is paused while a chunk of a few thousand
//   transactions goes into the pool, then one `evm_mine` packs them into a block. Nothing writes storage directly.
//   After each bulk phase `activeNodes()` must equal the count, or the bench fails.
// - Then, with automine back on, the N-th node registers (measured: `register`) and a whole job runs through
//   createJob, commitResults, submitResults, selectVerifiers (k = 3; the drawn nodes' seeds are committed first, found
//   on a snapshot), revealSeed x3, proveSample, commitVerification x3,
//   revealVerification x3, settle (Released), claim of one result leaf and of a processor's 15 other leaves; then a
//   probe round: a probe interval later one `probeNext(16)` (16 due nodes scanned and probed) and each probed node's
//   `answerProbe` (the most expensive reported); then the incentive pool: a node's `poke`, a `fund`, an hour later its
//   `claim`; then the model registry (from N = 8): announce (first and second holder), prompt of 1 and of 4 nodes, drop.
//   commit / reveal report the most expensive of the three (first committer pays the fresh slots). A second job with k = 3 (the fewest verifiers a job may have) measures the smallest draw (`selectVerifiers(k=3, smallest)`) and, divided by 3, one verifier's draw; a k = 5 job (k is odd), divided over its 2 more, the cost of a further verifier.
// - N grows cumulatively (the 100-node registry is the 10-node one plus 90 nodes).
// - Groups row: a fresh deployment with N = JOBMESH_GAS_GROUP_NODES nodes spread over 8 GPU models x 6 VRAM sizes
//   (8 12 16 24 48 80 GB: 48 groups), registered the same way; a k = 3 job of any model needing 24 GB (the draw
//   looks at 3 tiers x 8 models) and a k = 3 job requiring one model and 48 GB; each draw's gas / 3 = per
//   verifier ('draw per verifier, groups any model' / '..., groups one model').
// Output: a table on stdout and bench/out/gas.json as [{ op, nodes, gas }].
// Needs the built package (`npm run build`, or `npm run build -w @jobmesh/contracts`).
import { mkdirSync, writeFileSync } from 'node:fs'
import { createHash, generateKeyPairSync, sign } from 'node:crypto'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { StandardMerkleTree } from '@openzeppelin/merkle-tree'
import { AbiCoder, Interface, JsonRpcSigner, Wallet, concat, id, keccak256, parseEther, toBeHex, toUtf8Bytes, zeroPadValue } from 'ethers'

let contracts
try {
  contracts = await import('@jobmesh/contracts')
} catch (err) {
  process.stderr.write(`gas bench: cannot load @jobmesh/contracts (run \`npm run build\` first): ${err.message}\n`)
  process.exit(1)
}
const { connect, createProvider, deploy, nodeRegistryAbi, signPeerBinding, solveProbe, startAnvil } = contracts

const NODES = (process.env.JOBMESH_GAS_NODES ?? '10,100,1000,10000,100000').split(',').map(Number)
const GROUP_NODES = Number(process.env.JOBMESH_GAS_GROUP_NODES ?? '100000')
const GROUP_GPUS = Array.from({ length: 8 }, (_, m) => id(`bench-gpu-${m}`))
const GROUP_VRAM = [8, 12, 16, 24, 48, 80]
/** Hardware of node i: one GPU model (or, for the groups row, 8 models x 6 VRAM sizes). */
const oneGroup = () => [GPU, 24]
const spread = (i) => [GROUP_GPUS[i % 8], GROUP_VRAM[Math.floor(i / 8) % 6]]
const CHUNK = 2000
const GPU = id('RTX4090')
const STAKE = parseEther('0.01')
const FEE = parseEther('0.001') // the submitter's bond is 2 x the fee: within the 0.01 ether stake
const ZERO32 = '0x' + '00'.repeat(32)
const abi = AbiCoder.defaultAbiCoder()
const registryIface = new Interface(nodeRegistryAbi)
const outDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'out')

const nodeAddress = (i) => zeroPadValue(toBeHex((0xb1n << 144n) | BigInt(i)), 20)
const sha256 = (s) => '0x' + createHash('sha256').update(s).digest('hex')
const macroId = (seed, jobId, m) => keccak256(abi.encode(['uint256', 'bytes32', 'uint256'], [seed, jobId, m]))
const microId = (seed, jobId, m, i) => keccak256(abi.encode(['uint256', 'bytes32', 'uint256'], [seed, macroId(seed, jobId, m), i]))

const anvil = await startAnvil({
  accounts: 2,
  disableBlockGasLimit: true,
  args: ['--auto-impersonate', '--order', 'fifo', '--prune-history']
})
const provider = createProvider(anvil.rpcUrl, { chainId: anvil.chainId, pollingInterval: 50 })
const results = []
let rpcId = 0

async function rpcBatch (calls) {
  const res = await fetch(anvil.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(calls.map(([method, params]) => ({ jsonrpc: '2.0', id: ++rpcId, method, params }))),
    signal: AbortSignal.timeout(120_000)
  })
  const out = await res.json()
  for (const r of out) if (r.error != null) throw new Error(`${r.error.message} (${JSON.stringify(r.error.data ?? '')})`)
  return out.map((r) => r.result)
}

async function gasOf (txPromise) {
  const receipt = await (await txPromise).wait()
  if (receipt?.status !== 1) throw new Error('measured transaction failed')
  return receipt.gasUsed
}

/** A signer for any address (anvil --auto-impersonate signs eth_sendTransaction for it). */
const impersonate = (address) => new JsonRpcSigner(provider, address)
/** A verifier's seed number `index` (a real node derives it from its wallet's signature) and its commitment. */
const seedOf = (address, index) => keccak256(abi.encode(['string', 'address', 'uint256'], ['bench-seed', address, index]))
const seedHash = (seed) => keccak256(abi.encode(['bytes32'], [seed]))

function record (op, nodes, gas) {
  results.push({ op, nodes, gas: Number(gas) })
}

/** A fresh PeerId key (node:crypto Ed25519, RFC 8032 signatures as a libp2p key) and its proof for `owner`. */
async function peerIdProof (deployment, owner) {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519')
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x, 'base64url')
  const key = { type: 'Ed25519', publicKey: { raw }, sign: (data) => sign(null, data, privateKey) }
  return signPeerBinding(key, deployment, owner)
}

const proofArgs = (p) => [p.peerId, p.publicKey, p.signature]

async function bulkRegister (deployment, from, to, hardware = oneGroup) {
  const { nodeRegistry } = connect(deployment, provider)
  await rpcBatch([['evm_setAutomine', [false]]])
  for (let s = from; s < to; s += CHUNK) {
    const end = Math.min(to, s + CHUNK)
    const fund = []
    const send = []
    for (let i = s; i < end; i++) {
      const from = nodeAddress(i)
      fund.push(['anvil_setBalance', [from, toBeHex(parseEther('1'))]])
      send.push(['eth_sendTransaction', [{
        from,
        to: deployment.nodeRegistry,
        value: toBeHex(STAKE),
        gas: toBeHex(3_000_000),
        data: registryIface.encodeFunctionData('register', [...proofArgs(await peerIdProof(deployment, from)), ...hardware(i)])
      }]])
    }
    await rpcBatch(fund)
    await rpcBatch(send)
    await rpcBatch([['evm_mine', []]])
    if (end - from >= 10 * CHUNK && (end / CHUNK) % 10 === 0) process.stdout.write(`  registered ${end}\n`)
  }
  await rpcBatch([['evm_setAutomine', [true]]])
  const active = await nodeRegistry.activeNodes()
  if (active !== BigInt(to)) throw new Error(`bulk registration: ${active} active nodes, expected ${to}`)
}

const leafHash = (l) => keccak256(keccak256(abi.encode(['bytes32', 'uint256', 'uint256', 'bytes32', 'address'], l)))

/** The positional result tree (docs/protocol.md): root and the proof of a position. */
function positionalTree (leaves) {
  const levels = [leaves.map(leafHash)]
  let size = 1
  while (size < leaves.length) size *= 2
  while (levels[0].length < size) levels[0].push(ZERO32)
  while (levels.at(-1).length > 1) {
    const below = levels.at(-1)
    const next = []
    for (let i = 0; i < below.length; i += 2) next.push(keccak256(concat([below[i], below[i + 1]])))
    levels.push(next)
  }
  return { root: levels.at(-1)[0], proof: (pos) => levels.slice(0, -1).map((level, l) => level[(pos >> l) ^ 1]) }
}

const asLeaf = (l) => ({ microId: l[0], macroIndex: l[1], index: l[2], outputHash: l[3], payee: l[4] })

/** Runs one job through settlement; returns the gas of each step. */
async function runJob (deployment, creator, nonce, k, submitterIndex, needs = { minVramGb: 16, gpuModel: ZERO32 }) {
  const { jobEscrow } = connect(deployment, creator)
  const seed = 4242n + BigInt(nonce)
  const specCid = `bafy-bench-${nonce}`
  const macroJobs = 4
  const per = 8
  const jobId = keccak256(abi.encode(['address', 'string', 'uint256'], [creator.address, specCid, nonce]))
  const submitter = impersonate(nodeAddress(submitterIndex))
  const descriptors = []
  const resultLeaves = []
  for (let m = 0; m < macroJobs; m++) {
    for (let i = 0; i < per; i++) {
      const mid = microId(seed, jobId, m, i)
      descriptors.push([mid, m, i, (m * per + i) * 10, (m * per + i + 1) * 10])
      // two processors: the submitter and the next node
      resultLeaves.push([mid, m, i, sha256(`out-${nonce}-${m}-${i}`), i % 2 === 0 ? submitter.address : nodeAddress(submitterIndex + 1)])
    }
  }
  const jobTree = StandardMerkleTree.of(descriptors, ['bytes32', 'uint256', 'uint256', 'uint256', 'uint256'])
  const resultTree = positionalTree(resultLeaves)
  const gas = {}
  const latest = await provider.getBlock('latest')

  gas.createJob = await gasOf(jobEscrow.createJob({
    specCid,
    nonce,
    jobRoot: jobTree.root,
    seed,
    macroJobs,
    microJobsPerMacro: per,
    minVramGb: needs.minVramGb,
    gpuModel: needs.gpuModel,
    modelId: ZERO32,
    identicalHardware: false,
    k,
    samples: 1,
    deadline: latest.timestamp + 86_400,
    secondsPerMicroJob: 10
  }, { value: FEE }))
  const asSubmitter = connect(deployment, submitter).jobEscrow
  const commitment = keccak256(abi.encode(['bytes32', 'uint256', 'bytes32', 'string', 'address'], [jobId, 0, resultTree.root, 'bafy-manifest', submitter.address]))
  gas.commitResults = await gasOf(asSubmitter.commitResults(jobId, commitment))
  gas.submitResults = await gasOf(asSubmitter.submitResults(jobId, resultTree.root, 'bafy-manifest', []))
  await provider.send('evm_mine', [])
  // the drawn verifiers need seeds committed before the draw: find them on a snapshot, commit their seeds, draw
  // again (same blockhash, same registry: the same nodes)
  const snapshot = await provider.send('evm_snapshot', [])
  await (await jobEscrow.selectVerifiers(jobId)).wait()
  const toDraw = (await jobEscrow.verifiersOf(jobId)).map((v) => v.node)
  await provider.send('evm_revert', [snapshot])
  for (const a of toDraw) {
    const index = Number((await jobEscrow.seedCommits(a)).index)
    await (await connect(deployment, impersonate(a)).jobEscrow.commitSeed(seedHash(seedOf(a, index + 1)), index + 1)).wait()
  }
  gas.selectVerifiers = await gasOf(jobEscrow.selectVerifiers(jobId))
  gas.revealSeed = 0n
  for (const a of toDraw) {
    const index = Number((await jobEscrow.seedCommits(a)).index)
    const g = await gasOf(connect(deployment, impersonate(a)).jobEscrow.revealSeed(jobId, seedOf(a, index), seedHash(seedOf(a, index + 1))))
    if (g > gas.revealSeed) gas.revealSeed = g
  }

  const job = await jobEscrow.jobs(jobId)
  const verifiers = await jobEscrow.verifiersOf(jobId)
  if (verifiers.length !== k) throw new Error(`${verifiers.length} verifiers drawn, expected ${k}`)
  const positions = []
  for (let m = 0; m < macroJobs; m++) positions.push(m * per + Number(await jobEscrow.validationIndex(jobId, m)))
  const sampled = positions.map((pos) => resultLeaves[pos])
  gas.proveSample = await gasOf(asSubmitter.proveSample(jobId, sampled.map(asLeaf), positions.map((pos) => resultTree.proof(pos))))
  const proven = sampled.map(leafHash)
  const execution = id('bench-execution') // the verifiers' agreeing execution digest
  const digest = keccak256(abi.encode(['bytes32[]', 'bytes32'], [proven, execution]))
  const salt = id('bench-salt')
  const signers = verifiers.map((v) => impersonate(v.node))
  gas.commit = 0n
  for (const s of signers) {
    const c = abi.encode(['bytes32', 'bool', 'bytes32', 'address'], [digest, false, salt, s.address])
    const g = await gasOf(connect(deployment, s).jobEscrow.commitVerification(jobId, keccak256(c)))
    if (g > gas.commit) gas.commit = g
  }
  gas.reveal = 0n
  for (const s of signers) {
    const g = await gasOf(connect(deployment, s).jobEscrow.revealVerification(jobId, [salt, false, execution, proven, proven, asLeaf(sampled[0])]))
    if (g > gas.reveal) gas.reveal = g
  }
  gas.settle = await gasOf(jobEscrow.settle(jobId))
  if (Number(await jobEscrow.statusOf(jobId)) !== 3) throw new Error(`job ${jobId} not Released (entropy ${job.sampleEntropy})`)
  gas.claim = await gasOf(jobEscrow.claim(jobId, [asLeaf(resultLeaves[0])], [resultTree.proof(0)]))
  // a processor's 16 leaves in one transaction
  const mine = resultLeaves.map((l, pos) => [l, pos]).filter(([l, pos]) => pos !== 0 && l[4] === submitter.address)
  gas['claim (15 leaves)'] = await gasOf(jobEscrow.claim(jobId, mine.map(([l]) => asLeaf(l)), mine.map(([, pos]) => resultTree.proof(pos))))
  return gas
}

/**
 * One probe round: a probe interval later, one `probeNext(16)` from the cursor (each idle node it scans is due), then
 * every probed node answers (the most expensive answer is reported).
 */
async function probeRound (deployment) {
  const { nodeRegistry } = connect(deployment, provider)
  const interval = Number(await nodeRegistry.probeInterval())
  await rpcBatch([['evm_increaseTime', [toBeHex(interval)]], ['evm_mine', []]])
  const keeper = impersonate(nodeAddress(0))
  const receipt = await (await connect(deployment, keeper).nodeRegistry.probeNext(16)).wait()
  const assigned = receipt.logs.map((l) => registryIface.parseLog(l)).filter((e) => e?.name === 'ProbeAssigned')
  if (assigned.length === 0) throw new Error('probeNext assigned no probe')
  let answer = 0n
  for (const e of assigned) {
    const node = e.args.node
    const g = await gasOf(connect(deployment, impersonate(node)).nodeRegistry.answerProbe(solveProbe(e.args.challenge, node)))
    if (g > answer) answer = g
  }
  return { scan: receipt.gasUsed, assigned: assigned.length, answer }
}

/**
 * The incentive pool's operations (O(1): no row may grow with N): a node records its share (`poke`), the creator funds
 * the stream, an hour later the node claims.
 */
async function incentiveRound (deployment, funder) {
  const node = impersonate(nodeAddress(1))
  const pool = connect(deployment, node).incentivePool
  // a set gas limit: the estimate is taken in the pending block, and rewriting `lastUpdate` costs 2 800 more when the
  // transaction is mined a second later than the one before (gasUsed is what is measured)
  const gasLimit = 300_000n
  const poke = await gasOf(pool.poke(node.address, { gasLimit }))
  const fund = await gasOf(connect(deployment, funder).incentivePool.fund({ value: parseEther('1'), gasLimit }))
  await rpcBatch([['evm_increaseTime', [toBeHex(3_600)]], ['evm_mine', []]])
  const claim = await gasOf(pool.claim({ gasLimit }))
  return { poke, fund, claim }
}

/**
 * The model registry's operations (O(1) in nodes and holders): node 1 announces a model (`announce`, first holder of a
 * fresh model), node 2 announces it too, node 1 prompts nodes 3..6 (`prompt` of one node and of MAX_PROMPTS = 4, per
 * prompted node), node 2 drops it.
 */
async function modelsRound (deployment, n) {
  const models = (i) => connect(deployment, impersonate(nodeAddress(i))).modelRegistry
  const modelId = `ipfs://bafkreimodel${n}`
  const announce = await gasOf(models(1).announce(modelId))
  const second = await gasOf(models(2).announce(modelId))
  const one = await gasOf(models(1).prompt(modelId, [nodeAddress(3)]))
  const four = await gasOf(models(2).prompt(modelId, [4, 5, 6, 7].map(nodeAddress)))
  const drop = await gasOf(models(2).drop(keccak256(toUtf8Bytes(modelId))))
  return { announce, second, one, four, drop }
}

try {
  const creator = new Wallet(anvil.accounts[0].privateKey, provider)
  const deployment = await deploy(creator)
  let registered = 0
  let nonce = 0n
  for (const n of NODES) {
    if (n < registered + 1 || n < 6) throw new Error(`node counts must grow and be >= 6 (a k = 5 job and its submitter): ${NODES.join(', ')}`)
    const started = Date.now()
    await bulkRegister(deployment, registered, n - 1)
    const bulkMs = Date.now() - started
    // the N-th node registers with an ordinary transaction
    const last = impersonate(nodeAddress(n - 1))
    await provider.send('anvil_setBalance', [last.address, toBeHex(parseEther('1'))])
    const proof = proofArgs(await peerIdProof(deployment, last.address))
    record('register', n, await gasOf(connect(deployment, last).nodeRegistry.register(...proof, GPU, 24, { value: STAKE })))
    registered = n

    const gas = await runJob(deployment, creator, ++nonce, 3, 0)
    for (const op of ['createJob', 'commitResults', 'submitResults', 'selectVerifiers', 'revealSeed', 'proveSample', 'commit', 'reveal', 'settle', 'claim', 'claim (15 leaves)']) {
      record(op, n, gas[op])
    }
    const smallest = await runJob(deployment, creator, ++nonce, 3, 2)
    record('selectVerifiers(k=3, smallest)', n, smallest.selectVerifiers)
    const five = await runJob(deployment, creator, ++nonce, 5, 2)
    // derived, not transactions: one verifier's share of the smallest draw, and the cost of a further verifier
    record('draw per verifier (k=3)', n, smallest.selectVerifiers / 3n)
    record('draw per extra verifier', n, (five.selectVerifiers - smallest.selectVerifiers) / 2n)
    const probes = await probeRound(deployment)
    record('probeNext (16 scanned)', n, probes.scan)
    record('probe dispatch per probe', n, probes.scan / BigInt(probes.assigned))
    record('answerProbe', n, probes.answer)
    const incentive = await incentiveRound(deployment, creator)
    record('incentive poke', n, incentive.poke)
    record('incentive fund', n, incentive.fund)
    record('incentive claim', n, incentive.claim)
    if (n >= 8) {
      const m = await modelsRound(deployment, n)
      record('model announce (first holder)', n, m.announce)
      record('model announce (second holder)', n, m.second)
      record('model prompt (1 node)', n, m.one)
      record('model prompt (4 nodes)', n, m.four)
      record('model drop', n, m.drop)
    }
    process.stdout.write(`N = ${n}: registered in ${(bulkMs / 1000).toFixed(1)} s, measured in ${((Date.now() - started - bulkMs) / 1000).toFixed(1)} s\n`)
  }

  if (GROUP_NODES > 0) {
    // the groups row: a fresh registry with the nodes spread over 8 GPU models x 6 VRAM sizes
    const started = Date.now()
    const grouped = await deploy(creator)
    await bulkRegister(grouped, 0, GROUP_NODES, spread)
    const bulkMs = Date.now() - started
    const any = await runJob(grouped, creator, ++nonce, 3, 0, { minVramGb: 24, gpuModel: ZERO32 })
    record('draw per verifier, groups any model', GROUP_NODES, any.selectVerifiers / 3n)
    const one = await runJob(grouped, creator, ++nonce, 3, 2, { minVramGb: 48, gpuModel: GROUP_GPUS[3] })
    record('draw per verifier, groups one model', GROUP_NODES, one.selectVerifiers / 3n)
    process.stdout.write(`groups, N = ${GROUP_NODES}: registered in ${(bulkMs / 1000).toFixed(1)} s, measured in ${((Date.now() - started - bulkMs) / 1000).toFixed(1)} s\n`)
  }

  // table: one row per op, one column per N
  const ops = [...new Set(results.map((r) => r.op))]
  const columns = [...new Set([...NODES, ...(GROUP_NODES > 0 ? [GROUP_NODES] : [])])].sort((a, b) => a - b)
  const head = ['op'.padEnd(38), ...columns.map((n) => `N=${n}`.padStart(11))].join('')
  const lines = [head, '-'.repeat(head.length)]
  for (const op of ops) {
    lines.push([op.padEnd(38), ...columns.map((n) => String(results.find((r) => r.op === op && r.nodes === n)?.gas ?? '-').padStart(11))].join(''))
  }
  process.stdout.write('\n' + lines.join('\n') + '\n')
  const at = (op) => results.filter((r) => r.op === op).map((r) => r.gas)
  process.stdout.write('\nDESIGN section 11 targets (max over N):\n' + [
    ['a verifier draw, selectVerifiers(k=3) / 3', Math.max(...at('draw per verifier (k=3)')), 150_000],
    ...(GROUP_NODES > 0
      ? [['a verifier draw with VRAM/model groups', Math.max(...at('draw per verifier, groups any model'), ...at('draw per verifier, groups one model')), 150_000]]
      : []),
    ['createJob', Math.max(...at('createJob')), 200_000],
    ['settle', Math.max(...at('settle')), 250_000]
  ].map(([what, g, target]) => `  ${what}: ${g} (target < ${target}) ${g < target ? 'ok' : 'OVER'}`).join('\n') + '\n')

  mkdirSync(outDir, { recursive: true })
  writeFileSync(path.join(outDir, 'gas.json'), JSON.stringify(results, null, 2) + '\n')
  process.stdout.write(`\nwrote ${path.relative(process.cwd(), path.join(outDir, 'gas.json'))}\n`)
} finally {
  provider.destroy()
  await anvil.stop()
}
