import { createHash } from 'node:crypto'
import { generateKeyPair } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { Wallet, getAddress } from 'ethers'
import { afterEach, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { INDEX_JOBS_MAP, RESULTS_MAP, jobsTopic } from '../../src/coord/index.js'
import { JobAnnouncement } from '../../src/coord/pb/coord.js'
import { resultTable } from '../../src/coord/results.js'
import { recordSigner, recordVerifier } from '../../src/coord/signing.js'
import { INDEX_DOC } from '../../src/crdt/constants.js'
import { jobDocName, macroDocName, roundDocName } from '../../src/crdt/names.js'
import { ANNOUNCEMENT_DOMAIN, excludingVerifier, indexedRounds, reannounceRound, roundKey } from '../../src/jobs/index.js'
import { encodeJobSpec, sliceJob } from '../../src/protocol/index.js'
import { buildManifest, fundedJobs } from '../../src/settlement/index.js'
import { rawBlockCid } from '../../src/storage/index.js'
import { finalMap, publishProfile, slashedPeerIds } from '../../src/jobs/index.js'
import type { ChainClient } from '@jobmesh/contracts'
import type { SettlementDocs } from '../../src/settlement/index.js'
import type { PrivateKey } from '@libp2p/interface'
import { heldDone, startPeers, stopPeers, testJob, waitFor, waitForMesh } from '@jobmesh/testkit'
import type { TestPeer } from '@jobmesh/testkit'

function memoryDocs (): SettlementDocs & { docs: Map<string, Y.Doc> } {
  const docs = new Map<string, Y.Doc>()
  return {
    docs,
    open: async (name) => {
      let d = docs.get(name)
      if (d == null) { d = new Y.Doc(); docs.set(name, d) }
      return d
    }
  }
}

/** A chain that knows one rejection of `jobId` (submitter `slashed`) and the registry owner of no PeerId. */
/** A chain on which `slashed` was slashed for `jobId`, and `owners` names the wallet that registered each PeerId. */
function rejectedChain (jobId: string, slashed: string, owners: ReadonlyMap<string, string> = new Map()): ChainClient {
  return {
    rejectedCulprits: async (id: string) => id.toLowerCase() === jobId.toLowerCase() ? [getAddress(slashed)] : [],
    peerAddress: async (peerId: string) => owners.get(peerId),
    processorPool: async () => 8_000n
  } as unknown as ChainClient
}

function sha (text: string): Uint8Array {
  return new Uint8Array(createHash('sha256').update(text).digest())
}

function announce (key: PrivateKey, jobId: string, round?: number): Uint8Array {
  const job = testJob(1, 2)
  const payload = JobAnnouncement.encode({
    jobId: new Uint8Array(Buffer.from(jobId.slice(2), 'hex')), specCid: job.specCid, minVramGb: 0, value: 1, status: 0, microJobs: 2, round
  })
  return recordSigner(key, peerIdFromPrivateKey(key).toString()).sign(ANNOUNCEMENT_DOMAIN, payload)
}

describe('rounds: names, exclusion, re-announcement, finalization', () => {
  it('round 0 keeps the job doc and the jobId scope; round r gets its own doc and scope', () => {
    const id = '0x' + 'ab'.repeat(32)
    expect(roundDocName(id, 0)).toBe(jobDocName(id))
    expect(roundDocName(id, 2)).toBe(`${jobDocName(id)}/r2`)
    expect(roundKey(id, 0)).toBe(id)
    expect(roundKey(id, 1)).toBe(`${id}/r1`)
  })

  it('an excluding verifier treats records of excluded signers as absent', async () => {
    const [a, b] = await Promise.all([generateKeyPair('Ed25519'), generateKeyPair('Ed25519')])
    const [ida, idb] = [a, b].map(k => peerIdFromPrivateKey(k).toString())
    const v = excludingVerifier(recordVerifier(), new Set([ida]))
    expect(v.verify(recordSigner(a, ida).sign('d', new Uint8Array([1])), 'd')).toBeUndefined()
    expect(v.verify(recordSigner(b, idb).sign('d', new Uint8Array([1])), 'd')?.signer).toBe(idb)
  })

  it('re-announces a job for a later round once, keeping the announcement, signed by the re-announcer', async () => {
    const { open } = memoryDocs()
    const [creator, peer] = await Promise.all([generateKeyPair('Ed25519'), generateKeyPair('Ed25519')])
    const id = '0x' + 'cd'.repeat(32)
    const index = await open(INDEX_DOC)
    index.getMap<Uint8Array>(INDEX_JOBS_MAP).set(id, announce(creator, id))
    expect(await reannounceRound({ docs: { open }, privateKey: peer }, id, 0)).toBe(false)
    expect(await reannounceRound({ docs: { open }, privateKey: peer }, id, 1)).toBe(true)
    expect(await reannounceRound({ docs: { open }, privateKey: peer }, id, 1)).toBe(false)
    const v = recordVerifier().verify(index.getMap<Uint8Array>(INDEX_JOBS_MAP).get(id) as Uint8Array, ANNOUNCEMENT_DOMAIN)
    expect(v?.signer).toBe(peerIdFromPrivateKey(peer).toString())
    const a = JobAnnouncement.decode(v?.payload as Uint8Array)
    expect(a.round).toBe(1)
    expect(a.microJobs).toBe(2)
    // no announcement of the job: nothing to re-announce
    expect(await reannounceRound({ docs: { open }, privateKey: peer }, '0x' + 'ef'.repeat(32), 1)).toBe(false)
  })

  it('the finalizer of round 1 reads the round doc and refuses the slashed submitter\'s results', async () => {
    const docs = memoryDocs()
    const [cheater, honest, finalizer] = await Promise.all([generateKeyPair('Ed25519'), generateKeyPair('Ed25519'), generateKeyPair('Ed25519')])
    const cheaterWallet = Wallet.createRandom().address
    const honestWallet = Wallet.createRandom().address
    await publishProfile({ docs, privateKey: cheater }, { address: cheaterWallet, gpuModel: 'cpu', vramGb: 1 })
    await publishProfile({ docs, privateKey: honest }, { address: honestWallet, gpuModel: 'cpu', vramGb: 1 })
    const job = testJob(1, 2)
    const chain = rejectedChain(job.jobId, cheaterWallet, new Map([
      [peerIdFromPrivateKey(cheater).toString(), cheaterWallet],
      [peerIdFromPrivateKey(honest).toString(), honestWallet]
    ]))
    const components = { docs, chain, privateKey: finalizer }
    expect(await slashedPeerIds(components, job.jobId, 1)).toEqual(new Set([peerIdFromPrivateKey(cheater).toString()]))
    expect((await slashedPeerIds(components, job.jobId, 0)).size).toBe(0)
    // a `final` record naming the slashed wallet is its signer's word: a peer that writes one in the rejected round
    // (after its round-1 results went into an honest finalizer's manifest) does not drop its own results from the
    // verifiers' view, which would get that finalizer slashed; only the registry says who the slashed wallet's peers are
    const forged = { manifestCid: 'bafy-forged', resultRoot: '0x' + '11'.repeat(32), submitter: cheaterWallet, txHash: '0x' + '22'.repeat(32), blockNumber: 9 }
    await finalMap(await docs.open(roundDocName(job.jobId, 0)), job.jobId, 0)
      .set(peerIdFromPrivateKey(honest).toString(), new TextEncoder().encode(JSON.stringify(forged)), honest)
    expect(await slashedPeerIds(components, job.jobId, 1)).toEqual(new Set([peerIdFromPrivateKey(cheater).toString()]))

    const write = (doc: Y.Doc, key: PrivateKey, scope: string, index: number, text: string): void => {
      resultTable({ signer: recordSigner(key, peerIdFromPrivateKey(key).toString()), verifier: recordVerifier() }, doc.getMap<Uint8Array>(RESULTS_MAP), scope)
        .write(0, index, { term: 1, outputHash: sha(text), size: text.length })
    }
    const r1 = await docs.open(macroDocName(roundDocName(job.jobId, 1), 0))
    // the cheater's result has a higher term than nothing else: without the exclusion it would count for MicroJob 0
    write(r1, cheater, roundKey(job.jobId, 1), 0, 'wrong')
    write(r1, cheater, roundKey(job.jobId, 1), 1, 'wrong')
    // a round-0 record copied into the round-1 doc does not verify (the signing domain binds the round)
    write(r1, honest, job.jobId, 1, 'copied')
    await expect(buildManifest(components, job.jobId, job.spec, { round: 1 })).rejects.toThrow(/2 MicroJobs/)
    write(r1, honest, roundKey(job.jobId, 1), 0, 'right-0')
    write(r1, honest, roundKey(job.jobId, 1), 1, 'right-1')
    const manifest = await buildManifest(components, job.jobId, job.spec, { round: 1 })
    expect(manifest.microJobs.map(e => e.signer)).toEqual([peerIdFromPrivateKey(honest).toString(), peerIdFromPrivateKey(honest).toString()])
    expect(manifest.microJobs[0].outputHash).toBe('0x' + Buffer.from(sha('right-0')).toString('hex'))
    expect(manifest.microJobs.map(e => e.payee)).toEqual([honestWallet, honestWallet])
    // round 0 (its own doc) is untouched by the round-1 results
    await expect(buildManifest(components, job.jobId, job.spec, { round: 0 })).rejects.toThrow(/JobIncomplete|no trusted result/)
  })
})

describe('rounds: processors follow a re-announced job', () => {
  let peers: TestPeer[] = []
  afterEach(async () => {
    await stopPeers(peers)
    peers = []
  })

  it('processes round 1 in its own doc; the excluded peer does not take part', async () => {
    let excluded = ''
    peers = await startPeers(3, { rounds: { excluded: async (_jobId, round) => new Set(round > 0 ? [excluded] : []) } })
    excluded = peers[0].id
    await Promise.all(peers.map(async p => p.processor.start()))
    await waitForMesh(peers, jobsTopic())
    const job = testJob(2, 4)
    const total = sliceJob(job.spec, job.jobId).microJobs.length
    await peers[0].processor.announceJob(job.spec, job.jobId, job.specCid)
    const doneInRound0 = (p: TestPeer): number => heldDone(p.docs, job.jobId, 2).size
    await waitFor(() => peers.every(p => doneInRound0(p) === total), { timeoutMs: 20_000, what: 'round 0 done' })

    const round1: string[] = []
    for (const p of peers) {
      p.processor.addEventListener('microjob:done', () => { round1.push(p.id) })
    }
    expect(await reannounceRound({ docs: peers[1].docs, privateKey: peers[1].node.privateKey }, job.jobId, 1)).toBe(true)
    const doneInRound1 = (p: TestPeer): number => heldDone(p.docs, job.jobId, 2, { round: 1, scope: roundKey(job.jobId, 1) }).size
    await waitFor(() => peers.slice(1).every(p => doneInRound1(p) === total), { timeoutMs: 20_000, what: 'round 1 done' })
    expect(round1.length).toBeGreaterThanOrEqual(total)
    expect(round1.includes(peers[0].id)).toBe(false)
    // round 0's results stay where they were
    expect(doneInRound0(peers[1])).toBe(total)
    expect(peers[1].processor.knownJobs().find(j => j.jobId === job.jobId)?.state).toBe('complete')
  }, 60_000)

  it('on a chain, the round on chain is worked on: a re-signed announcement of a higher round moves nobody', async () => {
    const job = testJob(2, 4)
    // the escrow as a peer reads it (its status and rejections, the spec CID it was created with), through the
    // peer's own gate (`fundedJobs`), which wakes the processors when the round moves, as `createPeer` wires it
    const onChain = { status: 'Open' as const, rejections: 0, samples: 1, macroJobs: 2, secondsPerMicroJob: 1 }
    const chain = {
      job: async () => ({ ...onChain }),
      jobCreated: async () => ({ specCid: rawBlockCid(encodeJobSpec(job.spec)).toString() }),
      commitTimes: async () => ({ commitWindowBlocks: 20, secondsPerBlock: 2, maxRerunBlocks: 7_200 })
    }
    const funded = fundedJobs({ chain: chain as unknown as Parameters<typeof fundedJobs>[0]['chain'] },
      { recheckMs: 300, onRound: () => { for (const p of peers) p.processor.wake() } })
    try {
      peers = await startPeers(2, { roundOf: funded.round, deferJob: (j) => !funded.isOpen(j) })
      await Promise.all(peers.map(async p => p.processor.start()))
      await waitForMesh(peers, jobsTopic())
      const total = sliceJob(job.spec, job.jobId).microJobs.length
      const done = (p: TestPeer, round: number): number => heldDone(p.docs, job.jobId, 2, { round, scope: roundKey(job.jobId, round) }).size
      await peers[0].processor.announceJob(job.spec, job.jobId, job.specCid)
      await waitFor(() => peers.every(p => done(p, 0) === total), { timeoutMs: 20_000, what: 'round 0 done' })

      // anybody (a key no peer holds) re-signs the announcement with round 3: the index says 3 everywhere
      const stranger = await generateKeyPair('Ed25519')
      expect(await reannounceRound({ docs: peers[1].docs, privateKey: stranger }, job.jobId, 3)).toBe(true)
      await waitFor(async () => (await Promise.all(peers.map(async p => (await indexedRounds({ docs: p.docs })).get(job.jobId.toLowerCase())))).every(r => r === 3),
        { timeoutMs: 10_000, what: 'the forged round in every index' })
      // the escrow rejects round 0: processors that finished it follow the chain to round 1 by themselves, though
      // nobody can re-announce it (the index's 3 is higher)
      expect(await reannounceRound({ docs: peers[1].docs, privateKey: peers[1].node.privateKey }, job.jobId, 1)).toBe(false)
      onChain.rejections = 1
      await waitFor(() => peers.every(p => done(p, 1) === total), { timeoutMs: 20_000, what: 'round 1 done' })
      // round 3 was never opened, let alone worked on
      for (const p of peers) expect(p.docs.get(roundDocName(job.jobId, 3))).toBeUndefined()
    } finally {
      funded.stop()
    }
  }, 60_000)
})
