import { generateKeyPair } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { testJob } from '@jobmesh/testkit'
import { describe, expect, it } from 'vitest'
import { ANNOUNCEMENT_DOMAIN, createMetrics, JobAnnouncement, recordSigner, recordVerifier } from '../../src/coord/index.js'
import { signAnnouncement } from '../../src/jobs/index.js'
import { NEW_JOBS_PER_SENDER } from '../../src/processor/constants.js'
import { jobDiscovery } from '../../src/processor/job-discovery.js'
import { DEFAULT_PRICING } from '../../src/protocol/index.js'
import type { KnownJob } from '../../src/jobs/index.js'

async function announcer (): Promise<(jobId: string) => Uint8Array> {
  const key = await generateKeyPair('Ed25519')
  const signer = recordSigner(key, peerIdFromPrivateKey(key).toString())
  const job = testJob(1, 2)
  return jobId => signAnnouncement(signer, job.spec, jobId, job.specCid, DEFAULT_PRICING)
}

const jobId = (i: number): string => `0x${(i + 1).toString(16).padStart(64, 'f')}`

function setup (): { learn: ReturnType<typeof jobDiscovery>['learn'], jobs: Map<string, KnownJob>, learnt: string[], metrics: ReturnType<typeof createMetrics>, tick(ms: number): void } {
  let now = 0
  const jobs = new Map<string, KnownJob>()
  const learnt: string[] = []
  const metrics = createMetrics()
  const { learn } = jobDiscovery({
    self: '12D3KooWself', jobs, verifier: recordVerifier(), pricing: DEFAULT_PRICING, metrics, clock: () => now,
    onLearnt: job => { learnt.push(job.jobId) }
  })
  return { learn, jobs, learnt, metrics, tick: ms => { now += ms } }
}

describe('job discovery', () => {
  it('learns a job once; counts forged and malformed records; an index key holds only its own job', async () => {
    const sign = await announcer()
    const { learn, learnt, metrics } = setup()
    expect(learn(sign(jobId(0)))?.jobId).toBe(jobId(0))
    expect(learn(sign(jobId(0)))?.jobId).toBe(jobId(0))
    expect(learnt).toEqual([jobId(0)])
    const forged = sign(jobId(1))
    forged[forged.length - 1] ^= 0xff
    expect(learn(forged)).toBeUndefined()
    expect(metrics.droppedForged).toBe(1)
    expect(learn(sign(jobId(2)), { key: jobId(3) })).toBeUndefined()
    expect(learn(sign(jobId(2)), { key: jobId(2) })?.jobId).toBe(jobId(2))
    expect(learnt).toEqual([jobId(0), jobId(2)])
  })

  it('a /jobs sender announces a burst of new jobs, then one a second; the index is not budgeted', async () => {
    const sign = await announcer()
    const { learn, learnt, metrics, tick } = setup()
    let n = 0
    for (let i = 0; i < NEW_JOBS_PER_SENDER.burst + 5; i++) learn(sign(jobId(n++)), { from: 'a' })
    expect(learnt).toHaveLength(NEW_JOBS_PER_SENDER.burst)
    expect(metrics.rateLimited).toBe(5)
    // the 5 refused overdrew the bucket by 5: six seconds give one token back
    tick(6_000)
    learn(sign(jobId(n++)), { from: 'a' })
    expect(learnt).toHaveLength(NEW_JOBS_PER_SENDER.burst + 1)
    // the index (no sender) is not budgeted
    expect(learn(sign(jobId(n++)), { key: jobId(n - 1) })).toBeDefined()
  })

  it('what a job needs is read from its spec, not from the announcement\'s copy (anybody may re-sign it)', async () => {
    const key = await generateKeyPair('Ed25519')
    const signer = recordSigner(key, peerIdFromPrivateKey(key).toString())
    const job = testJob(1, 2)
    const honest = JobAnnouncement.decode(recordVerifier().verify(signAnnouncement(signer, job.spec, job.jobId, job.specCid, DEFAULT_PRICING), ANNOUNCEMENT_DOMAIN)?.payload ?? new Uint8Array())
    const resigned = signer.sign(ANNOUNCEMENT_DOMAIN, JobAnnouncement.encode({ ...honest, minVramGb: 1000, gpuModel: 'H100', modelId: 'ipfs://nothing' }))
    const { learn } = setup()
    const learnt = learn(resigned)
    expect(learnt?.minVramGb).toBe(job.spec.requirements.minVramGb)
    expect(learnt?.gpuModel).toBe(job.spec.requirements.gpuModel)
    expect(learnt?.modelId).toBe(job.spec.requirements.modelId)
  })
})
