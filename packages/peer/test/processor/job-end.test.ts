import { generateKeyPair } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { describe, expect, it } from 'vitest'
import { recordSigner, recordVerifier } from '../../src/coord/signing.js'
import { readAnnouncement, signAnnouncement } from '../../src/jobs/index.js'
import { DEFAULT_PRICING, taskValue } from '../../src/protocol/index.js'
import { giveUp, jobComplete, reopenJob } from '../../src/processor/job-end.js'
import type { JobContext, KnownJob } from '../../src/processor/job-context.js'
import type { JobEndHost } from '../../src/processor/job-end.js'
import { testJob } from '@jobmesh/testkit'

function endHarness (now: number, lastLocalResult: number) {
  const events: Array<{ type: string, detail: unknown }> = []
  const finalized: string[] = []
  const closed: number[] = []
  const host: JobEndHost = {
    completed: new Set(),
    failed: new Set(),
    doneElsewhere: new Set(),
    clock: () => now,
    onJobComplete: (jobId) => { finalized.push(jobId) },
    dispatch: (type, detail) => { events.push({ type, detail }) }
  }
  const ctx = {
    job: { jobId: '0xjob' },
    finalized: false,
    lastLocalResult,
    rooms: new Map([[0, { close: () => { closed.push(0) } }], [1, { close: () => { closed.push(1) } }]])
  } as unknown as JobContext
  return { host, ctx, events, finalized, closed }
}

describe('ending a job here (job-end.ts)', () => {
  it('a peer that wrote a result within the completion window finalizes; once only; its rooms close', async () => {
    const h = endHarness(10_000, 9_500)
    await jobComplete(h.host, h.ctx, false)
    await jobComplete(h.host, h.ctx, true)
    expect(h.events).toEqual([{ type: 'job:complete', detail: { jobId: '0xjob', finalizer: true } }])
    expect(h.finalized).toEqual(['0xjob'])
    expect(h.closed).toEqual([0, 1])
    expect(h.host.completed.has('0xjob')).toBe(true)
  })

  it('a peer whose last result is older than the window only watches the job complete', async () => {
    const h = endHarness(10_000, 8_000)
    await jobComplete(h.host, h.ctx, false)
    expect(h.events).toEqual([{ type: 'job:complete', detail: { jobId: '0xjob', finalizer: false } }])
    expect(h.finalized).toEqual([])
  })

  it('giving a job up marks it failed and completed, closes its rooms, and completion no longer finalizes it', async () => {
    const h = endHarness(10_000, 9_900)
    giveUp(h.host, h.ctx, { attempts: 3, peers: 2, reasons: ['TrapError'] })
    expect(h.host.doneElsewhere.size).toBe(0)
    await jobComplete(h.host, h.ctx, true)
    expect(h.events).toEqual([{ type: 'job:failed', detail: { jobId: '0xjob', attempts: 3, peers: 2, reasons: ['TrapError'] } }])
    expect(h.host.failed.has('0xjob')).toBe(true)
    // the others completed it: noted (jobmesh status lists it complete), nothing else happens here
    expect(h.host.doneElsewhere.has('0xjob')).toBe(true)
    expect(h.finalized).toEqual([])
  })

  it('a job ended on summaries its docs do not bear out is worked on again, its rooms and finalizer state cleared; a job given up is not', async () => {
    const h = endHarness(10_000, 0)
    h.ctx.finishedLast = true
    await jobComplete(h.host, h.ctx, false)
    expect(h.finalized).toEqual(['0xjob'])
    expect(reopenJob(h.host, h.ctx)).toBe(true)
    expect(h.host.completed.has('0xjob')).toBe(false)
    expect([h.ctx.finalized, h.ctx.finishedLast, h.ctx.rooms.size]).toEqual([false, undefined, 0])
    // ending it again ends it again (and finalizes only as the completion window or its own finish says)
    await jobComplete(h.host, h.ctx, false)
    expect(h.events.filter(e => e.type === 'job:complete')).toHaveLength(2)
    const given = endHarness(10_000, 0)
    giveUp(given.host, given.ctx, { attempts: 3, peers: 2, reasons: [] })
    expect(reopenJob(given.host, given.ctx)).toBe(false)
    expect(given.host.completed.has('0xjob')).toBe(true)
  })
})

describe('job announcements (announcements.ts)', () => {
  it('reads a signed announcement as a new job, the same again as known, a forged one as forged', async () => {
    const key = await generateKeyPair('Ed25519')
    const signer = recordSigner(key, peerIdFromPrivateKey(key).toString())
    const { spec: s, jobId, specCid } = testJob(2, 4)
    const record = signAnnouncement(signer, s, jobId, specCid, DEFAULT_PRICING)
    const verifier = recordVerifier()
    const first = readAnnouncement(record, verifier, () => undefined, DEFAULT_PRICING)
    expect(first.kind).toBe('new')
    const job = (first as { job: KnownJob }).job
    expect(job).toMatchObject({ jobId: jobId.toLowerCase(), specCid, round: 0, signer: signer.peerId })
    expect(job.value).toBe(taskValue(s.price, 8, DEFAULT_PRICING)) // 2 x 4 MicroJobs, the network's pricing
    expect(job.spec.slicing).toEqual(s.slicing)
    expect(readAnnouncement(record, verifier, () => job, DEFAULT_PRICING)).toEqual({ kind: 'known', job })
    const forged = record.slice()
    forged[forged.length - 1] ^= 1
    expect(readAnnouncement(forged, verifier, () => undefined, DEFAULT_PRICING)).toEqual({ kind: 'forged' })
  })
})
