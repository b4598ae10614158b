import { generateKeyPairSync, sign } from 'node:crypto'
import { testWallet, workerAnvil } from '@jobmesh/testkit/anvil'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connect, createProvider, deploy, serializeDeployment, signPeerBinding } from '@jobmesh/contracts'
import { leases, macroDocs, recordSigner, recordVerifier } from '@jobmesh/peer/coord'
import { createDocStore, jobDocName } from '@jobmesh/peer/crdt'
import { createNode } from '@jobmesh/peer/node'
import { REPLICATION_PROTOCOL, startHoldProofServer, startReplicationServer } from '@jobmesh/peer/replication'
import { createContentStore } from '@jobmesh/peer/storage'
import { resultLeafHash, samplePositions, verifierHash } from '@jobmesh/peer/protocol'
import { resultCommitment } from '@jobmesh/peer/settlement'
import { AbiCoder, Wallet, keccak256 } from 'ethers'
import * as lp from 'it-length-prefixed'
import { echoModule } from '../../peer/test/executor/wasm-builder.js'
import { createJobClient } from '../src/index.js'
import type { JobClient, JobClientInit } from '../src/index.js'
import type { CliIo } from '../src/cli/io.js'
import type { Anvil, Deployment, DeployInit, JobmeshContracts, PeerBindingKey } from '@jobmesh/contracts'
import type { DocStore } from '@jobmesh/peer/crdt'
import type { JobmeshNode } from '@jobmesh/peer/node'
import type { HoldProofServer } from '@jobmesh/peer/replication'
import type { CID } from 'multiformats/cid'
import type { PositionalTree, ResultLeaf } from '@jobmesh/peer/protocol'
import type { JsonRpcProvider } from 'ethers'

/** Everything a test started; `cleanup()` stops it all. */
export interface Env {
  anvil: Anvil
  provider: JsonRpcProvider
  deployment: Deployment
  /** A network peer (not processing) with a doc store, the client's bootstrap peer. */
  peer: JobmeshNode
  peerDocs: DocStore
  client: JobClient
  dir: string
  wallet(i: number): Wallet
  contracts(i: number): JobmeshContracts
}

const cleanups: Array<() => Promise<void>> = []

export async function cleanup (): Promise<void> {
  for (const fn of cleanups.splice(0).reverse()) {
    await fn().catch(() => {})
  }
}

export async function setup (init: { deploy?: DeployInit, client?: Partial<JobClientInit> } = {}): Promise<Env> {
  const dir = await mkdtemp(join(tmpdir(), 'jobmesh-sdk-'))
  cleanups.push(async () => rm(dir, { recursive: true, force: true }))
  const anvil = await workerAnvil({ accounts: 6 })
  cleanups.push(async () => anvil.stop())
  const provider = createProvider(anvil.rpcUrl, { chainId: anvil.chainId, pollingInterval: 50 })
  cleanups.push(async () => provider.destroy())
  const wallet = (i: number): Wallet => testWallet(anvil.accounts[i].privateKey, provider)
  const deployment = await deploy(wallet(0), init.deploy)
  const peer = await createNode({})
  cleanups.push(async () => peer.stop())
  const peerDocs = createDocStore(peer)
  cleanups.push(async () => peerDocs.stop())
  const addr = peer.libp2p.getMultiaddrs().find(m => !m.toString().includes('/ws'))
  if (addr === undefined) throw new Error('the peer has no TCP address')
  const client = await createJobClient({
    rpcUrl: anvil.rpcUrl,
    signer: anvil.accounts[1].privateKey,
    deployment,
    bootstrap: [addr.toString()],
    dataDir: join(dir, 'client'),
    pollIntervalMs: 50,
    ...init.client
  })
  cleanups.push(async () => client.stop())
  return { anvil, provider, deployment, peer, peerDocs, client, dir, wallet, contracts: (i) => connect(deployment, wallet(i)) }
}

/** A small valid submission: 8 blocks of 4 bytes, 2 MacroJobs x 2 MicroJobs x 2 blocks. */
export function smallJob (): { code: Uint8Array, data: Uint8Array } {
  // the smallest module with the executor's ABI (submit refuses code without it)
  const code = echoModule
  const data = new Uint8Array(32).map((_, i) => i)
  return { code, data }
}

export const SLICING = { macroJobs: 2, microJobsPerMacro: 2, blocksPerMicro: 2 }

/** A CLI's io that keeps what it printed: `stdout` and `stderr`, a line each. */
export function capture (): CliIo & { stdout: string[], stderr: string[] } {
  const stdout: string[] = []
  const stderr: string[] = []
  return { stdout, stderr, out: (l) => stdout.push(l), err: (l) => stderr.push(l) }
}

async function mined (p: Promise<{ wait(): Promise<unknown> }>): Promise<void> {
  await (await p).wait()
}

/** A fresh Ed25519 PeerId key (node:crypto: RFC 8032 signatures, as a libp2p peer's key). */
export function peerKey (): PeerBindingKey {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519')
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x ?? '', 'base64url')
  return { type: 'Ed25519', publicKey: { raw }, sign: (data) => sign(null, data, privateKey) }
}

/**
 * Registers account `i` as a node with a PeerId (a fresh Ed25519 one, or `key`'s: `env.peer.privateKey` makes the
 * env's peer a registered node, whose "held" a submit counts), bound to the account by its key's proof.
 */
export async function registerNode (env: Env, i: number, gpuModel: string, vramGb: number, value: bigint,
  key: PeerBindingKey = peerKey()): Promise<string> {
  const proof = await signPeerBinding(key, env.deployment, await env.wallet(i).getAddress())
  await mined(env.contracts(i).nodeRegistry.register(proof.peerId, proof.publicKey, proof.signature, gpuModel, vramGb, { value }))
  return proof.peerId
}

/**
 * Drives the escrow from Open to Released with the contracts directly: account 2 registers, commits and submits the
 * results, accounts 3, 4 and 5 register and are the three verifiers (k = 3, the fewest a job may have); all commit and
 * reveal the expected leaf hashes (wrong ones with `honest: false`: the results are rejected and the job is Open
 * again).
 */
export async function driveRelease (env: Env, jobId: string, tree: PositionalTree<ResultLeaf>, leaves: ResultLeaf[],
  options: { honest?: boolean } = {}): Promise<number> {
  const gpu = keccak256(new TextEncoder().encode('any-gpu'))
  const stake = env.deployment.params.registry.minStake
  const sub = env.contracts(2)
  const vers = [3, 4, 5]
  await registerNode(env, 2, gpu, 8, stake)
  const coder = AbiCoder.defaultAbiCoder()
  const seedOf = (v: number, index: number): string => keccak256(coder.encode(['string', 'uint256', 'uint256'], ['seed', v, index]))
  const seedHash = (seed: string): string => keccak256(coder.encode(['bytes32'], [seed]))
  for (const v of vers) {
    await registerNode(env, v, gpu, 8, stake)
    await mined(env.contracts(v).jobEscrow.commitSeed(seedHash(seedOf(v, 0)), 0))
  }
  const submitter = await env.wallet(2).getAddress()
  const round = Number((await sub.jobEscrow.jobs(jobId)).rejections)
  await mined(sub.jobEscrow.commitResults(jobId, resultCommitment(jobId, round, tree.root, '', submitter)))
  await mined(sub.jobEscrow.submitResults(jobId, tree.root, '', []))
  await env.provider.send('evm_mine', [])
  await env.provider.send('evm_mine', [])
  await mined(sub.jobEscrow.selectVerifiers(jobId))
  // the verifiers' seeds fix the sample
  for (const v of vers) {
    const index = Number((await sub.jobEscrow.seedCommits(await env.wallet(v).getAddress())).index)
    await mined(env.contracts(v).jobEscrow.revealSeed(jobId, seedOf(v, index), seedHash(seedOf(v, index + 1))))
  }
  const job = await sub.jobEscrow.jobs(jobId)
  const positions = samplePositions(job.seed, Number(job.macroJobs), Number(job.microJobsPerMacro), Number(job.samples), job.sampleEntropy)
  const sampled = positions.map(pos => leaves[pos])
  const proven = sampled.map(l => resultLeafHash(l))
  const expected = options.honest === false ? proven.map(() => keccak256('0x0bad')) : proven
  const salt = keccak256('0x02')
  const execution = keccak256('0x03') // the verifiers' agreeing execution digest of their re-runs
  for (const v of vers) {
    const verifier = await env.wallet(v).getAddress()
    await mined(env.contracts(v).jobEscrow.commitVerification(jobId, keccak256(coder.encode(['bytes32', 'bool', 'bytes32', 'address'], [verifierHash(expected, execution), false, salt, verifier]))))
  }
  const tuple = (l: ResultLeaf): [string, number, number, string, string] => [l.microId, l.macroIndex, l.index, l.outputHash, l.payee]
  await mined(sub.jobEscrow.proveSample(jobId, sampled.map(tuple), positions.map(pos => tree.getProof(pos))))
  for (const v of vers) await mined(env.contracts(v).jobEscrow.revealVerification(jobId, [salt, false, execution, expected, proven, tuple(sampled[0])]))
  const receipt = await (await sub.jobEscrow.settle(jobId)).wait()
  if (receipt == null) throw new Error('settle not mined')
  return receipt.blockNumber
}

/** The CLI's connection flags for `env`: --rpc, and a key file (account `account`) and deployment file in its dir. */
export async function connectFlags (env: Env, account = 1): Promise<string[]> {
  const key = join(env.dir, `key-${account}`)
  const deployment = join(env.dir, 'deployment.json')
  await writeFile(key, `${env.anvil.accounts[account].privateKey}\n`)
  await writeFile(deployment, serializeDeployment(env.deployment))
  return ['--rpc', env.anvil.rpcUrl, '--key-file', key, '--deployment', deployment]
}

/**
 * The network peer as the job's processors: the job's MacroJob docs opened on its doc store, its results table signed
 * with its key (outputs go in its blockstore by the caller).
 */
export async function processorDocs (env: Env, jobId: string): Promise<ReturnType<typeof macroDocs>> {
  const signer = recordSigner(env.peer.privateKey, env.peer.peerId.toString())
  const verifier = recordVerifier()
  const docs = macroDocs({ signer, verifier, docs: env.peerDocs, leases: leases({ signer, verifier }) }, { roundDoc: jobDocName(jobId), jobKey: jobId })
  for (const m of [0, 1]) await docs.open(m, { signal: AbortSignal.timeout(10_000) })
  return docs
}

/**
 * Makes `node` serve what a peer serves a DApp's client for its inputs: it fetches and pins them when asked
 * (`/jobmesh/replicate/1.0.0`) and proves it holds them (`/jobmesh/hold-proof/1.0.0`).
 */
export async function serveInputs (node: JobmeshNode): Promise<{ stop: () => Promise<void> }> {
  const replication = await startReplicationServer({ libp2p: node.libp2p, store: createContentStore({ helia: node.helia }) })
  const proofs = await startHoldProofServer({ libp2p: node.libp2p, blockstore: node.helia.blockstore })
  return { stop: async () => { await proofs.stop(); await replication.stop() } }
}

/**
 * Makes `node` a liar about holding inputs: it says "held" at once and holds nothing, and answers each hold-proof
 * challenge by fetching the challenged blocks from whoever serves them (the client) and hashing them.
 */
export async function lieAboutHolding (node: JobmeshNode): Promise<HoldProofServer> {
  await node.libp2p.handle(REPLICATION_PROTOCOL, async (stream) => {
    await lp.decode(stream).next()
    stream.send(lp.encode.single(new TextEncoder().encode('{"ok":true}')))
    await stream.close()
  })
  const fetching = { get: (cid: CID, o?: { signal?: AbortSignal }) => node.helia.blockstore.get(cid, { signal: o?.signal }) }
  return await startHoldProofServer({ libp2p: node.libp2p, blockstore: fetching })
}
