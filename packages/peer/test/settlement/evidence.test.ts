import { createHash } from 'node:crypto'
import { Wallet, getAddress } from 'ethers'
import { afterEach, describe, expect, it } from 'vitest'
import { RESULTS_MAP } from '../../src/coord/constants.js'
import { resultTable } from '../../src/coord/results.js'
import { recordSigner, recordVerifier } from '../../src/coord/signing.js'
import { createDocStore, INDEX_DOC, macroDocName, roundDocName } from '../../src/crdt/index.js'
import { createNode } from '../../src/node/index.js'
import { roundKey } from '../../src/jobs/index.js'
import { sliceJob, workTag } from '../../src/protocol/index.js'
import { judgeSample, pullFromSubmitter, roundRecords, walletPeerIds } from '../../src/settlement/index.js'
import { publishProfile, readProfiles } from '../../src/jobs/index.js'
import { evidenceComplete } from '../../src/settlement/sample.js'
import type { ChainClient, SampleLeaf } from '@jobmesh/contracts'
import type { DocStore } from '../../src/crdt/index.js'
import type { JobmeshNode } from '../../src/node/index.js'
import { testJob, waitFor } from '@jobmesh/testkit'

interface Peer { node: JobmeshNode, docs: DocStore, id: string, wallet: string }

function sha (text: string): Uint8Array {
  return new Uint8Array(createHash('sha256').update(text).digest())
}

function hex (bytes: Uint8Array): string {
  return '0x' + Buffer.from(bytes).toString('hex')
}

/** The registry (`peerIdOwner`) and the job's one rejection (round 0 by `cheater`), as a verifier reads them. */
function chainOf (jobId: string, cheater: string, owners: Map<string, string>): ChainClient {
  return {
    rejectedCulprits: async (id: string) => id.toLowerCase() === jobId.toLowerCase() ? [getAddress(cheater)] : [],
    peerAddress: async (peerId: string) => owners.get(peerId)
  } as unknown as ChainClient
}

describe('evidence: a verifier pulls the round doc from the submitter it is not connected to', () => {
  let peers: Peer[] = []
  afterEach(async () => {
    for (const p of peers) {
      await p.docs.stop().catch(() => {})
      await p.node.stop().catch(() => {})
    }
    peers = []
  })

  async function peer (): Promise<Peer> {
    const node = await createNode()
    const docs = createDocStore(node, { compactIntervalMs: 0 })
    const p = { node, docs, id: node.peerId.toString(), wallet: getAddress(Wallet.createRandom().address) }
    peers.push(p)
    return p
  }

  it('judges the submitter\'s honest leaves right once pulled; a leaf paying a wallet that signed nothing stays wrong', async () => {
    // the topology of a round processed by a node that joined late: the submitter and the verifier each know only
    // the bootstrap peer, which does not follow the round (the slashed processor of round 0)
    const [submitter, bootstrap, verifier] = [await peer(), await peer(), await peer()]
    for (const p of [submitter, verifier]) await p.node.libp2p.dial(bootstrap.node.libp2p.getMultiaddrs()[0], { signal: AbortSignal.timeout(10_000) })

    const job = testJob(1, 2)
    const round = 1
    const owners = new Map(peers.map(p => [p.id, p.wallet]))
    const chain = chainOf(job.jobId, bootstrap.wallet, owners)
    // profiles travel in the index doc, which every peer follows (here through the bootstrap peer)
    for (const p of peers) await p.docs.open(INDEX_DOC)
    await publishProfile({ docs: submitter.docs, privateKey: submitter.node.privateKey }, { address: submitter.wallet, gpuModel: 'cpu', vramGb: 1 })
    await waitFor(() => verifier.docs.get(INDEX_DOC)?.getMap('peers').has(submitter.id) === true, { timeoutMs: 20_000, what: 'the submitter\'s profile at the verifier' })
    expect((await readProfiles({ docs: verifier.docs })).get(submitter.id)?.address).toBe(submitter.wallet)

    // the submitter's copy of the round-1 doc of MacroJob 0: its signed result of each MicroJob (the leaves of its manifest)
    const name = macroDocName(roundDocName(job.jobId, round), 0)
    const own = await submitter.docs.open(name)
    const table = resultTable({ signer: recordSigner(submitter.node.privateKey, submitter.id), verifier: recordVerifier() }, own.getMap<Uint8Array>(RESULTS_MAP), roundKey(job.jobId, round))
    const { microJobs } = sliceJob(job.spec, job.jobId)
    // each run's execution digest (what the verifier's re-run yields too) and the submitter's work tag from it
    const digest = (i: number): string => hex(sha(`digest-${i}`))
    for (const d of microJobs) table.write(d.macroIndex, d.index, { term: 1, outputHash: sha(`out-${d.index}`), size: 4, workTag: workTag(digest(d.index), submitter.id) })
    const leaf = (i: number, payee: string): SampleLeaf => ({ microId: microJobs[i].microId, macroIndex: 0, index: i, outputHash: hex(sha(`out-${i}`)), payee })
    const sample = microJobs.map((d, i) => ({ descriptor: d, outputHash: hex(sha(`out-${i}`)), digest: digest(i), proven: leaf(i, submitter.wallet) }))

    // the submitter's PeerId from its profile and the registry, dialled through the network: the verifier opens the
    // round's doc and pulls the submitter's copy
    const components = { docs: verifier.docs, chain, privateKey: verifier.node.privateKey }
    expect(verifier.docs.get(name)).toBeUndefined()
    expect(await walletPeerIds(components, submitter.wallet)).toEqual([submitter.id])
    expect(await pullFromSubmitter(components, job.jobId, round, submitter.wallet, { macroJobs: [0], timeoutMs: 10_000 })).toBe(1)
    // the peer both dialled does not follow the round: an exchange with it (what gossip, catch-up and `confirm` do
    // with connected peers) brings no evidence, and judging without it rejects honest leaves (judge-sample.test.ts)
    await expect(verifier.docs.sync(name, bootstrap.id, { push: false, timeoutMs: 5_000 })).rejects.toMatchObject({ name: 'DocNotFoundError' })

    const records = await roundRecords(components, job.jobId, round)
    expect(await evidenceComplete(components, records, sample)).toBe(true)
    const judged = await judgeSample(components, records, sample)
    expect(judged.firstBad).toBe(-1)

    // the payout-thief defence holds: a right output paid to a wallet that signed no result of the round is wrong
    const thief = await judgeSample(components, records, [{ ...sample[0], proven: leaf(0, verifier.wallet) }])
    expect(thief.firstBad).toBe(0)
    expect(thief.processorBlame).toBe(false)
  }, 60_000)

  it('a profile naming the submitter\'s wallet without the registry\'s binding is not pulled from', async () => {
    const [submitter, impostor] = [await peer(), await peer()]
    await impostor.node.libp2p.dial(submitter.node.libp2p.getMultiaddrs()[0], { signal: AbortSignal.timeout(10_000) })
    for (const p of peers) await p.docs.open(INDEX_DOC)
    await publishProfile({ docs: impostor.docs, privateKey: impostor.node.privateKey }, { address: submitter.wallet, gpuModel: 'cpu', vramGb: 1 })
    await publishProfile({ docs: submitter.docs, privateKey: submitter.node.privateKey }, { address: submitter.wallet, gpuModel: 'cpu', vramGb: 1 })
    await waitFor(() => impostor.docs.get(INDEX_DOC)?.getMap('peers').size === 2, { timeoutMs: 20_000, what: 'both profiles' })
    const chain = chainOf('0x' + '00'.repeat(32), impostor.wallet, new Map([[submitter.id, submitter.wallet], [impostor.id, impostor.wallet]]))
    expect(await walletPeerIds({ docs: impostor.docs, chain }, submitter.wallet)).toEqual([submitter.id])
    // no doc store that can dial: nothing pulled, nothing thrown
    expect(await pullFromSubmitter({ docs: { open: async n => await impostor.docs.open(n) }, chain }, '0x' + '00'.repeat(32), 1, submitter.wallet, { macroJobs: [0] })).toBe(0)
  }, 30_000)
})
