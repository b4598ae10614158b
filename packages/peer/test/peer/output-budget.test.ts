import { testExecutor, testJob, waitFor } from '@jobmesh/testkit'
import { afterEach, describe, expect, it } from 'vitest'
import { createPeer } from '../../src/peer.js'
import { computeJobId, encodeJobSpec, parseJobSpec } from '../../src/protocol/index.js'
import { rawBlockCid } from '../../src/storage/index.js'
import type { Peer } from '../../src/peer.js'
import type { JobSpec } from '../../src/protocol/index.js'

const peers: Peer[] = []

afterEach(async () => {
  await Promise.all(peers.splice(0).map(async p => { await p.stop() }))
})

async function peer (maxJobOutputBytes?: number): Promise<Peer> {
  const p = await createPeer({
    listen: ['/ip4/127.0.0.1/tcp/0'],
    vramGb: 1,
    executor: testExecutor(),
    ...(maxJobOutputBytes == null ? {} : { maxJobOutputBytes })
  })
  peers.push(p)
  return p
}

/** A job of 4 MicroJobs whose code, data and spec `p` serves (the test executor runs it), with an output bound or not. */
async function servedJob (p: Peer, nonce: bigint, maxOutputBytes?: number): Promise<{ spec: JobSpec, jobId: string, specCid: string }> {
  const store = p.store
  const codeUri = `ipfs://${await store.addBytes(Uint8Array.of(0, 0x61, 0x73, 0x6d))}`
  const dataUri = `ipfs://${await store.addBytes(new Uint8Array(64).fill(Number(nonce)))}`
  const spec = parseJobSpec({
    ...testJob(1, 4).input,
    codeUri,
    dataUri,
    estimate: { secondsPerMicroJob: 1, ...(maxOutputBytes == null ? {} : { maxOutputBytes }) }
  })
  const specCid = rawBlockCid(encodeJobSpec(spec)).toString()
  await store.addRaw(encodeJobSpec(spec))
  return { spec, specCid, jobId: computeJobId(spec.creator, specCid, nonce).toLowerCase() }
}

/** The jobs `p` sees complete, from now on. */
function completions (p: Peer): Set<string> {
  const done = new Set<string>()
  p.processor?.addEventListener('job:complete', evt => { done.add(evt.detail.jobId) })
  return done
}

describe('a peer\'s bound on what one job may make it hold (--max-job-output)', () => {
  it('leaves alone a job whose outputs may come to more, says so once, and takes one that declares a small bound', async () => {
    const bounded = await peer(1024 * 1024) // 1 MiB
    const other = await peer()
    await bounded.node.libp2p.dial(other.node.libp2p.getMultiaddrs()[0], { signal: AbortSignal.timeout(10_000) })
    const ranHere: string[] = []
    bounded.processor?.addEventListener('microjob:done', evt => { ranHere.push(evt.detail.jobId) })

    // 4 MicroJobs that declare no bound: up to 4 x 64 MiB
    const big = await servedJob(other, 1n)
    const doneThere = completions(other)
    await other.processor?.announceJob(big.spec, big.jobId, big.specCid)
    const note = await waitFor(() => bounded.events.recent().find(e => e.kind === 'job:waiting' && e.jobId === big.jobId),
      { timeoutMs: 20_000, what: 'the bounded peer\'s line about the job' })
    expect(note.text).toMatch(/left alone: its 4 MicroJobs may output up to 64 MiB each \(it declares no bound\), 256 MiB in all, more than this node's --max-job-output of 1 MiB/)
    await waitFor(() => doneThere.has(big.jobId), { timeoutMs: 20_000, what: 'the other peer to complete the job' })
    expect(ranHere).not.toContain(big.jobId)
    expect(bounded.events.recent().filter(e => e.jobId === big.jobId && e.kind === 'job:waiting')).toHaveLength(1)

    // the same work with a bound of 1 KiB per MicroJob (4 KiB in all): taken, here alone
    await other.stop()
    const small = await servedJob(bounded, 2n, 1024)
    const doneHere = completions(bounded)
    await bounded.processor?.announceJob(small.spec, small.jobId, small.specCid)
    await waitFor(() => doneHere.has(small.jobId), { timeoutMs: 20_000, what: 'the bounded peer to complete the small job' })
    expect(ranHere.filter(id => id === small.jobId)).toHaveLength(4)
  }, 60_000)
})
