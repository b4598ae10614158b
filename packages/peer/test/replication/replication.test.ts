import { createHash } from 'node:crypto'
import { patternBytes } from '@jobmesh/testkit'
import { startChain } from '@jobmesh/testkit/anvil'
import { parseEther } from 'ethers'
import * as lp from 'it-length-prefixed'
import { CID } from 'multiformats/cid'
import { afterEach, describe, expect, it } from 'vitest'
import { createNode } from '../../src/node/index.js'
import { computeJobId, encodeJobSpec, parseJobSpec } from '../../src/protocol/index.js'
import {
  askReplica, holdCheck, provenHolders, replicate, replicateOutputs, startHoldProofServer, startReplicationServer, REPLICATION_PROTOCOL
} from '../../src/replication/index.js'
import { decodeRequest } from '../../src/replication/wire.js'
import { MANIFEST_VERSION } from '../../src/settlement/constants.js'
import { encodeManifest } from '../../src/settlement/manifest.js'
import { createContentStore, rawOutputCid } from '../../src/storage/index.js'
import type { JobmeshNode } from '../../src/node/index.js'
import { fundJob } from '../settlement/funded-job.js'
import type { HoldProofServer, ReplicationServer, ReplicationServerComponents, ReplicationServerInit } from '../../src/replication/index.js'
import type { ManifestEntry } from '../../src/settlement/index.js'
import type { ContentStore } from '../../src/storage/index.js'
import type { TestChain } from '@jobmesh/testkit/anvil'

interface Holder { node: JobmeshNode, store: ContentStore, server?: ReplicationServer }

const nodes: Holder[] = []
const servers: HoldProofServer[] = []

/** A node; `serve` runs a replication server on it (true: without a chain, the defaults). */
async function holder (serve: boolean | { chain?: ReplicationServerComponents['chain'], init?: ReplicationServerInit }): Promise<Holder> {
  const node = await createNode({ listen: ['/ip4/127.0.0.1/tcp/0'] })
  const store = createContentStore({ helia: node.helia }, { fetchTimeoutMs: 5_000 })
  const server = serve === false
    ? undefined
    : await startReplicationServer({ libp2p: node.libp2p, store, chain: serve === true ? undefined : serve.chain }, serve === true ? {} : serve.init)
  const h: Holder = { node, store, server }
  nodes.push(h)
  return h
}

async function connect (a: Holder, b: Holder): Promise<void> {
  await a.node.libp2p.dial(b.node.libp2p.getMultiaddrs()[0], { signal: AbortSignal.timeout(10_000) })
}

async function isPinned (h: Holder, uri: string): Promise<boolean> {
  return await h.node.helia.pins.isPinned(CID.parse(uri.slice('ipfs://'.length)))
}

/** Whether `h`'s blockstore has the block of `cid` at all (fetched, pinned or not). */
async function hasBlock (h: Holder, cid: string): Promise<boolean> {
  return await h.node.helia.blockstore.has(CID.parse(cid))
}

/** `outputs` stored by `h` and a manifest of job `jobId` listing them (signed by `signer`), as a finalizer builds one. */
async function addManifest (h: Holder, jobId: string, outputs: Uint8Array[], signer: string): Promise<{ manifestCid: string, microJobs: ManifestEntry[] }> {
  const microJobs: ManifestEntry[] = []
  for (const [i, o] of outputs.entries()) {
    const outputHash = '0x' + createHash('sha256').update(o).digest('hex')
    const outputCid = await h.store.addOutput(o)
    microJobs.push({ microId: '0x' + String(i % 10).repeat(64), macroIndex: 0, index: i, start: i, end: i + 1, outputHash, outputCid, size: o.byteLength, signer, payee: '0x' + '00'.repeat(20) })
  }
  const manifestCid = await h.store.addBytes(encodeManifest({ version: MANIFEST_VERSION, jobId, resultRoot: '0x' + '11'.repeat(32), microJobs }))
  return { manifestCid, microJobs }
}

/**
 * A DApp-side holder with a job's code, data and spec: what `submit` uploads. The spec declares 300 blocks of 1 000
 * bytes; `dataBytes` (default 300 000) is what the data URI really holds.
 */
async function uploadJob (dapp: Holder, dataBytes = 300_000): Promise<{ jobId: string, specCid: string, nonce: bigint, codeUri: string, dataUri: string }> {
  const codeUri = `ipfs://${await dapp.store.addBytes(patternBytes(3000, 1))}`
  const dataUri = `ipfs://${await dapp.store.addBytes(patternBytes(dataBytes, 2))}`
  const spec = parseJobSpec({
    version: 1, creator: '0x00000000000000000000000000000000000000a1', codeUri, dataUri, blockSize: 1000, blockCount: 300,
    slicing: { macroJobs: 3, microJobsPerMacro: 10, blocksPerMicro: 10 }, seed: '7', requirements: { minVramGb: 0 },
    price: '1000000000000000', estimate: { secondsPerMicroJob: 1 }, verifiers: 3, deadline: 1_900_000_000_000
  })
  const specCid = await dapp.store.addOutput(encodeJobSpec(spec))
  const nonce = 42n
  return { jobId: computeJobId(spec.creator, specCid, nonce).toLowerCase(), specCid, nonce, codeUri, dataUri }
}

afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop()
  for (const h of nodes.splice(0)) {
    await h.server?.stop()
    await h.node.stop()
  }
})

describe('replication', () => {
  it('peers fetch and pin a job\'s spec, code and data on request; they serve them after the uploader is gone', async () => {
    const [dapp, b, c] = [await holder(false), await holder(true), await holder(true)]
    await connect(b, c)
    await connect(dapp, b)
    await connect(dapp, c)
    const job = await uploadJob(dapp)
    const held = await replicate({ libp2p: dapp.node.libp2p }, { kind: 'inputs', jobId: job.jobId, specCid: job.specCid, nonce: job.nonce.toString() }, {
      enough: h => h.length >= 2, timeoutMs: 30_000
    })
    expect(held.sort()).toEqual([b.node.peerId.toString(), c.node.peerId.toString()].sort())
    await dapp.node.stop()
    nodes.splice(nodes.indexOf(dapp), 1)
    for (const h of [b, c]) {
      for (const uri of [job.codeUri, job.dataUri, `ipfs://${job.specCid}`]) expect(await isPinned(h, uri)).toBe(true)
      // read locally: nobody else has it any more
      expect((await h.store.fetch(job.dataUri, { timeoutMs: 2_000 })).byteLength).toBe(300_000)
    }
  })

  it('with retryIntervalMs, peers that connect after the first ask are asked again: the call ends once one holds the inputs', async () => {
    const [dapp, b] = [await holder(false), await holder(true)]
    const job = await uploadJob(dapp)
    const request = { kind: 'inputs' as const, jobId: job.jobId, specCid: job.specCid, nonce: job.nonce.toString() }
    // asked once, with nobody connected: nobody holds the inputs (what a detached submit used to leave behind)
    expect(await replicate({ libp2p: dapp.node.libp2p }, request, { enough: h => h.length >= 1, timeoutMs: 30_000 })).toEqual([])
    const asking = replicate({ libp2p: dapp.node.libp2p }, request, { enough: h => h.length >= 1, timeoutMs: 30_000, retryIntervalMs: 100 })
    await connect(dapp, b)
    expect(await asking).toEqual([b.node.peerId.toString()])
    expect(await isPinned(b, job.dataUri)).toBe(true)
  })

  it('asks a peer that has not answered yet only once, and ends its stream when the call returns', async () => {
    const [dapp, b, silent] = [await holder(false), await holder(true), await holder(false)]
    // a peer that takes requests and never answers them (one that is still fetching, or stalled)
    const asked: Array<Promise<string>> = []
    await silent.node.libp2p.handle(REPLICATION_PROTOCOL, async (stream) => {
      asked.push((async (): Promise<string> => {
        try {
          for await (const _ of stream) { /* the request; no answer is sent */ }
          return 'ended'
        } catch (err) {
          return (err as Error).name
        }
      })())
    })
    await connect(dapp, silent)
    const job = await uploadJob(dapp)
    const request = { kind: 'inputs' as const, jobId: job.jobId, specCid: job.specCid, nonce: job.nonce.toString() }
    // the silent peer is asked in the first round; b connects later and is asked in a retry round
    const asking = replicate({ libp2p: dapp.node.libp2p }, request, { enough: h => h.length >= 1, timeoutMs: 30_000, retryIntervalMs: 50 })
    await connect(dapp, b)
    expect(await asking).toEqual([b.node.peerId.toString()])
    expect(asked).toHaveLength(1)
    // the call is over: the silent peer's stream ends now, not at the 30 s timeout
    const still = new Promise<string>(resolve => { setTimeout(() => resolve('still open'), 10_000).unref() })
    expect(await Promise.race([asked[0], still])).not.toBe('still open')
  })

  it('with retryIntervalMs, stops at its deadline and when its signal aborts', async () => {
    const dapp = await holder(false)
    const job = await uploadJob(dapp)
    const request = { kind: 'inputs' as const, jobId: job.jobId, specCid: job.specCid, nonce: job.nonce.toString() }
    const started = Date.now()
    expect(await replicate({ libp2p: dapp.node.libp2p }, request, { enough: h => h.length >= 1, timeoutMs: 300, retryIntervalMs: 50 })).toEqual([])
    expect(Date.now() - started).toBeGreaterThanOrEqual(250)
    const controller = new AbortController()
    const asking = replicate({ libp2p: dapp.node.libp2p }, request, { enough: h => h.length >= 1, timeoutMs: 30_000, retryIntervalMs: 50, signal: controller.signal })
    controller.abort(new Error('stop'))
    await expect(asking).rejects.toThrow('stop')
  })

  it('refuses a spec that does not give the jobId, and a malformed request', async () => {
    const [dapp, b] = [await holder(false), await holder(true)]
    await connect(dapp, b)
    const job = await uploadJob(dapp)
    await expect(askReplica({ libp2p: dapp.node.libp2p }, b.node.peerId, { kind: 'inputs', jobId: job.jobId, specCid: job.specCid, nonce: '43' }, {
      signal: AbortSignal.timeout(20_000)
    })).rejects.toMatchObject({ name: 'ReplicaRefusedError' })
    expect(await isPinned(b, job.dataUri)).toBe(false)
    expect(() => decodeRequest(new TextEncoder().encode('{"kind":"inputs","jobId":"0x12"}'))).toThrow(expect.objectContaining({ name: 'ReplicationProtocolError' }))
    expect(() => decodeRequest(new Uint8Array(5000))).toThrow(expect.objectContaining({ name: 'ReplicationProtocolError' }))
  })

  it('holds no data DAG larger than the job declares (blockCount x blockSize): nothing of it is pinned', async () => {
    const [dapp, b] = [await holder(false), await holder(true)]
    await connect(dapp, b)
    // 300 blocks of 1 000 bytes declared, 4 MiB behind the data URI: more than any MicroJob of the job reads
    const job = await uploadJob(dapp, 4 * 1024 * 1024)
    await expect(askReplica({ libp2p: dapp.node.libp2p }, b.node.peerId, { kind: 'inputs', jobId: job.jobId, specCid: job.specCid, nonce: job.nonce.toString() }, {
      signal: AbortSignal.timeout(20_000)
    })).rejects.toMatchObject({ name: 'ReplicaRefusedError', refusal: 'ContentTooLargeError' })
    expect(await isPinned(b, job.dataUri)).toBe(false)
  })

  it('ends a stream whose request never comes at its timeout: a silent peer holds no inbound slot', async () => {
    const [asker, server] = [await holder(false), await holder(false)]
    server.server = await startReplicationServer({ libp2p: server.node.libp2p, store: server.store }, { timeoutMs: 300 })
    await connect(asker, server)
    const stream = await asker.node.libp2p.dialProtocol(server.node.peerId, REPLICATION_PROTOCOL, { signal: AbortSignal.timeout(10_000) })
    // the asker sends nothing; the server ends the stream (libp2p's own inactivity timeout is 120 s)
    const read = (async (): Promise<string> => {
      try {
        for await (const _ of stream) { /* no answer comes */ }
        return 'ended'
      } catch (err) {
        return (err as Error).name
      }
    })()
    const still = new Promise<string>(resolve => { setTimeout(() => resolve('still open'), 10_000).unref() })
    expect(await Promise.race([read, still])).not.toBe('still open')
  })

  it('the finalizer has r peers besides each producer hold the manifest and every output', async () => {
    const [fin, b, c, d] = [await holder(true), await holder(true), await holder(true), await holder(true)]
    for (const h of [b, c, d]) await connect(fin, h)
    const jobId = '0x' + 'cd'.repeat(32)
    const outputs = [patternBytes(500, 3), patternBytes(700, 4), patternBytes(900, 5)]
    const signers = [b.node.peerId.toString(), c.node.peerId.toString(), fin.node.peerId.toString()]
    const microJobs = []
    for (const [i, o] of outputs.entries()) {
      const outputHash = '0x' + createHash('sha256').update(o).digest('hex')
      expect(await fin.store.addOutput(o)).toBe(rawOutputCid(outputHash))
      microJobs.push({ microId: '0x' + String(i).repeat(64), macroIndex: 0, index: i, start: i, end: i + 1, outputHash, outputCid: rawOutputCid(outputHash), size: o.byteLength, signer: signers[i] })
    }
    const manifestCid = await fin.store.addBytes(encodeManifest({
      version: MANIFEST_VERSION, jobId, resultRoot: '0x' + '11'.repeat(32), payoutRoot: '0x' + '22'.repeat(32), microJobs, payouts: []
    }))
    // r = 3 besides the producer: with 4 peers, every one must hold everything
    const r = await replicateOutputs({ libp2p: fin.node.libp2p, self: fin.node.peerId.toString() }, jobId, manifestCid, signers, { replicas: 3, timeoutMs: 30_000 })
    expect(r.held.sort()).toEqual([b, c, d].map(h => h.node.peerId.toString()).sort())
    expect(r.minReplicas).toBe(3)
    await fin.server?.stop()
    await fin.node.stop()
    nodes.splice(nodes.indexOf(fin), 1)
    for (const h of [b, c, d]) {
      expect(await isPinned(h, `ipfs://${manifestCid}`)).toBe(true)
      for (const e of microJobs) expect(await isPinned(h, `ipfs://${e.outputCid}`)).toBe(true)
    }
  })

  it('a network smaller than r gets what it has: peers that do not speak the protocol are not counted', async () => {
    const [fin, b, client] = [await holder(true), await holder(true), await holder(false)]
    await connect(fin, b)
    await connect(fin, client)
    const jobId = '0x' + 'ef'.repeat(32)
    const { manifestCid, microJobs: [entry] } = await addManifest(fin, jobId, [patternBytes(100, 9)], fin.node.peerId.toString())
    const r = await replicateOutputs({ libp2p: fin.node.libp2p, self: fin.node.peerId.toString() }, jobId, manifestCid, [entry.signer], { replicas: 3, timeoutMs: 30_000 })
    expect(r.held).toEqual([b.node.peerId.toString()])
    expect(r.minReplicas).toBe(1)
  })

  it('a "held" counts only when `counts` says so (with a chain: a registered node\'s); one that does not, or whose check fails, is no holder and no failure', async () => {
    const [fin, b, c, d] = [await holder(true), await holder(true), await holder(true), await holder(true)]
    for (const h of [b, c, d]) await connect(fin, h)
    const jobId = '0x' + 'ab'.repeat(32)
    const { manifestCid, microJobs: [entry] } = await addManifest(fin, jobId, [patternBytes(100, 7)], fin.node.peerId.toString())
    const cid = entry.outputCid
    const [registered, failing] = [b.node.peerId.toString(), d.node.peerId.toString()]
    const asked: string[] = []
    const counts = async (peer: string): Promise<boolean> => {
      asked.push(peer)
      if (peer === failing) throw new Error('the registry cannot be read')
      return peer === registered
    }
    const r = await replicateOutputs({ libp2p: fin.node.libp2p, self: fin.node.peerId.toString() }, jobId, manifestCid, [entry.signer], { replicas: 3, counts, timeoutMs: 30_000 })
    expect(r.held).toEqual([registered])
    expect(r.minReplicas).toBe(1)
    // every peer confirmed (each holds the output), and each confirmation was checked
    expect(asked.sort()).toEqual([b, c, d].map(h => h.node.peerId.toString()).sort())
    for (const h of [b, c, d]) expect(await isPinned(h, `ipfs://${cid}`)).toBe(true)
  })

  it('with proofs, a registered replica that says "held" and holds nothing is no holder: the finalizer withholds the challenged blocks', async () => {
    const [fin, b, c, liar] = [await holder(true), await holder(true), await holder(true), await holder(false)]
    for (const h of [b, c]) servers.push(await startHoldProofServer({ libp2p: h.node.libp2p, blockstore: h.node.helia.blockstore }))
    // the liar confirms every request at once, and answers challenges by fetching the blocks from whoever has them
    await liar.node.libp2p.handle(REPLICATION_PROTOCOL, async (stream) => {
      await lp.decode(stream).next()
      stream.send(lp.encode.single(new TextEncoder().encode('{"ok":true}')))
      await stream.close()
    })
    const fetching = { get: (cid: CID, o?: { signal?: AbortSignal }) => liar.node.helia.blockstore.get(cid, { signal: o?.signal }) }
    servers.push(await startHoldProofServer({ libp2p: liar.node.libp2p, blockstore: fetching }))
    for (const h of [liar, b, c]) await connect(fin, h)
    const jobId = '0x' + 'cd'.repeat(32)
    const { manifestCid, microJobs } = await addManifest(fin, jobId, [patternBytes(100, 1), patternBytes(3000, 2), patternBytes(2_000_000, 3)], fin.node.peerId.toString())
    const outputs = microJobs.map(e => e.outputCid)
    // challenges answered within 1 s: the liar's stalls the honest replicas' fetches that long, within their 5 s
    const counts = provenHolders(holdCheck(fin.node, [manifestCid, ...outputs], { timeoutMs: 1_000 }))
    const r = await replicateOutputs({ libp2p: fin.node.libp2p, self: fin.node.peerId.toString() }, jobId, manifestCid, [microJobs[0].signer],
      { replicas: 4, counts, timeoutMs: 30_000 })
    expect(r.held.sort()).toEqual([b, c].map(h => h.node.peerId.toString()).sort())
    // without proofs its word counted: the same replication, every "held" taken
    const unproven = await replicateOutputs({ libp2p: fin.node.libp2p, self: fin.node.peerId.toString() }, jobId, manifestCid, [microJobs[0].signer],
      { replicas: 4, timeoutMs: 30_000 })
    expect(unproven.held).toContain(liar.node.peerId.toString())
  })

  it('a connected peer that cannot hold the outputs (here: bytes that do not hash right) stops the submission: NotEnoughReplicasError', async () => {
    const [fin, b] = [await holder(true), await holder(true)]
    await connect(fin, b)
    const jobId = '0x' + 'ef'.repeat(32)
    const o = patternBytes(100, 9)
    const cid = await fin.store.addOutput(o)
    const entry = { microId: '0x' + '0'.repeat(64), macroIndex: 0, index: 0, start: 0, end: 1, outputHash: '0x' + '00'.repeat(32), outputCid: cid, size: 100, signer: fin.node.peerId.toString() }
    const manifestCid = await fin.store.addBytes(encodeManifest({
      version: MANIFEST_VERSION, jobId, resultRoot: '0x' + '11'.repeat(32), payoutRoot: '0x' + '22'.repeat(32), microJobs: [entry], payouts: []
    }))
    const failed = replicateOutputs({ libp2p: fin.node.libp2p, self: fin.node.peerId.toString() }, jobId, manifestCid, [entry.signer], { replicas: 3, timeoutMs: 30_000 })
    await expect(failed).rejects.toMatchObject({ name: 'NotEnoughReplicasError', held: [] })
    await expect(failed).rejects.toThrow(b.node.peerId.toString())
  })
})

describe('replication of outputs: who may ask, for which job, how much', () => {
  let chain: TestChain | undefined
  afterEach(async () => {
    await chain?.stop()
    chain = undefined
  })

  /** A chain, a funded (Open) job, a replica that checks with the chain, and a finalizer registered as a node. */
  async function setup (init?: ReplicationServerInit): Promise<{ chain: TestChain, jobId: string, replica: Holder, fin: Holder }> {
    chain = await startChain({ accounts: 3 })
    const { jobId } = await fundJob(chain.clients[0])
    const replica = await holder({ chain: chain.clients[2], init })
    const fin = await holder(false)
    await chain.clients[1].ensureRegistered({ peerId: fin.node.peerId.toString(), privateKey: fin.node.privateKey, gpuModel: 'cpu', vramGb: 1, stake: parseEther('0.1') })
    await connect(fin, replica)
    return { chain, jobId: jobId.toLowerCase(), replica, fin }
  }

  const ask = async (from: Holder, to: Holder, jobId: string, manifestCid: string): Promise<void> => {
    await askReplica({ libp2p: from.node.libp2p }, to.node.peerId, { kind: 'outputs', jobId, manifestCid }, { signal: AbortSignal.timeout(30_000) })
  }

  it('an unregistered node cannot make a peer fetch or store anything; the registered finalizer of an Open job can', async () => {
    const { jobId, replica, fin } = await setup()
    // the attack: a hand-made manifest of junk "outputs" for a job the escrow knows, from a node nobody registered
    const attacker = await holder(false)
    await connect(attacker, replica)
    const junk = await addManifest(attacker, jobId, [patternBytes(50_000, 20), patternBytes(50_000, 21), patternBytes(50_000, 22)], attacker.node.peerId.toString())
    await expect(ask(attacker, replica, jobId, junk.manifestCid)).rejects.toMatchObject({ name: 'ReplicaRefusedError', message: expect.stringContaining('UnregisteredSenderError') })
    // refused before fetching: not even the manifest reached the replica's blockstore
    expect(await hasBlock(replica, junk.manifestCid)).toBe(false)
    for (const e of junk.microJobs) expect(await hasBlock(replica, e.outputCid)).toBe(false)

    // the honest path: the registered finalizer, the job Open
    const real = await addManifest(fin, jobId, [patternBytes(40_000, 23), patternBytes(40_000, 24)], fin.node.peerId.toString())
    await ask(fin, replica, jobId, real.manifestCid)
    expect(await isPinned(replica, `ipfs://${real.manifestCid}`)).toBe(true)
    for (const e of real.microJobs) expect(await isPinned(replica, `ipfs://${e.outputCid}`)).toBe(true)
  })

  it('refuses the outputs of a job that is no longer Open, even from a registered node', async () => {
    const { chain, jobId, replica, fin } = await setup()
    await chain.clients[0].provider.send('evm_increaseTime', [7200])
    await chain.clients[0].refund(jobId)
    const late = await addManifest(fin, jobId, [patternBytes(30_000, 25)], fin.node.peerId.toString())
    await expect(ask(fin, replica, jobId, late.manifestCid)).rejects.toMatchObject({ name: 'ReplicaRefusedError', message: expect.stringContaining('JobNotOpenError') })
    expect(await hasBlock(replica, late.manifestCid)).toBe(false)
    expect(await hasBlock(replica, late.microJobs[0].outputCid)).toBe(false)
  })

  it('refuses the inputs of a job the escrow is done with: a refunded job\'s spec and data are not fetched', async () => {
    chain = await startChain({ accounts: 3 })
    const creator = await holder(false)
    // two jobs of specs that differ (their deadlines): one stays Open, the other is refunded
    const open = await fundJob(chain.clients[0], { nonce: 1n, deadline: Date.now() + 3_000_000 })
    const done = await fundJob(chain.clients[0], { nonce: 2n })
    // the creator serves both specs (what a replica fetches first)
    for (const job of [open, done]) await creator.store.addRaw(encodeJobSpec(job.spec))
    const replica = await holder({ chain: chain.clients[2] })
    await connect(creator, replica)
    const ask = async (job: typeof open, nonce: string): Promise<void> => {
      await askReplica({ libp2p: creator.node.libp2p }, replica.node.peerId, { kind: 'inputs', jobId: job.jobId.toLowerCase(), specCid: job.specCid, nonce }, { signal: AbortSignal.timeout(30_000) })
    }
    // Open: the replica takes the request and fetches the spec (the test job's code is a CID nobody serves, so the
    // pin fails after it)
    await expect(ask(open, '1')).rejects.not.toMatchObject({ message: expect.stringContaining('JobNotOpenError') })
    expect(await hasBlock(replica, open.specCid)).toBe(true)
    // refunded: refused before anything is fetched
    await chain.clients[0].provider.send('evm_increaseTime', [7200])
    await chain.clients[0].refund(done.jobId)
    await expect(ask(done, '2')).rejects.toMatchObject({ name: 'ReplicaRefusedError', message: expect.stringContaining('JobNotOpenError') })
    expect(await hasBlock(replica, done.specCid)).toBe(false)
  })

  it('bounds the bytes of one request and of one sender; an output larger than its listed size is not held', async () => {
    const { jobId, replica, fin } = await setup({ maxRequestBytes: 30_000, maxSenderBytes: 35_000 })
    const self = fin.node.peerId.toString()
    const big = await addManifest(fin, jobId, [patternBytes(20_000, 30), patternBytes(20_000, 31)], self)
    await expect(ask(fin, replica, jobId, big.manifestCid)).rejects.toMatchObject({ message: expect.stringContaining('ReplicationBudgetError') })
    for (const e of big.microJobs) expect(await hasBlock(replica, e.outputCid)).toBe(false)

    const first = await addManifest(fin, jobId, [patternBytes(20_000, 32)], self)
    await ask(fin, replica, jobId, first.manifestCid)
    // a retry of the same manifest is not counted again
    await ask(fin, replica, jobId, first.manifestCid)
    expect(await isPinned(replica, `ipfs://${first.microJobs[0].outputCid}`)).toBe(true)
    // another 20 000 bytes (and its manifest) would pass the sender's 35 000
    const second = await addManifest(fin, jobId, [patternBytes(20_000, 33)], self)
    await expect(ask(fin, replica, jobId, second.manifestCid)).rejects.toMatchObject({ message: expect.stringContaining('ReplicationBudgetError') })
    expect(await hasBlock(replica, second.microJobs[0].outputCid)).toBe(false)

    // a size that understates the output: the replica stops at the size it counted
    const other = await holder({ chain: chain?.clients[2], init: { maxRequestBytes: 30_000 } })
    await connect(fin, other)
    const lying = await addManifest(fin, jobId, [patternBytes(25_000, 34)], self)
    const understated = { ...lying.microJobs[0], size: 100 }
    const lyingCid = await fin.store.addBytes(encodeManifest({ version: MANIFEST_VERSION, jobId, resultRoot: '0x' + '11'.repeat(32), microJobs: [understated] }))
    await expect(ask(fin, other, jobId, lyingCid)).rejects.toMatchObject({ name: 'ReplicaRefusedError' })
    // not pinned; a raw block is fetched whole before its size is checked, so it may sit unpinned in the blockstore
    expect(await isPinned(other, `ipfs://${understated.outputCid}`)).toBe(false)
  })

  it('a blob that is no manifest is charged to its sender: once the budget is spent, nothing more is fetched', async () => {
    const { jobId, replica, fin } = await setup({ maxSenderBytes: 50_000 })
    const junk = async (seed: number): Promise<string> => await fin.store.addBytes(patternBytes(30_000, seed))
    const first = await junk(50)
    await expect(ask(fin, replica, jobId, first)).rejects.toMatchObject({ name: 'ReplicaRefusedError' })
    // 20 000 bytes left: a 30 000-byte blob is more than the fetch may take, and the attempt spends them
    await expect(ask(fin, replica, jobId, await junk(51))).rejects.toMatchObject({ name: 'ReplicaRefusedError' })
    const third = await junk(52)
    await expect(ask(fin, replica, jobId, third)).rejects.toMatchObject({ message: expect.stringContaining('ReplicationBudgetError') })
    expect(await hasBlock(replica, third)).toBe(false)
  })

  it('a replica that declines for its budget does not stop the submission: it counts as one that does not hold them', async () => {
    const { jobId, replica, fin } = await setup({ maxRequestBytes: 10_000 })
    const self = fin.node.peerId.toString()
    const m = await addManifest(fin, jobId, [patternBytes(20_000, 40)], self)
    const r = await replicateOutputs({ libp2p: fin.node.libp2p, self }, jobId, m.manifestCid, [self], { replicas: 3, timeoutMs: 30_000 })
    expect(r).toEqual({ held: [], minReplicas: 0 })
    expect(await hasBlock(replica, m.microJobs[0].outputCid)).toBe(false)
  })
})
