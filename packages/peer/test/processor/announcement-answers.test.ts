import { generateKeyPair } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { testJob } from '@jobmesh/testkit'
import { recordSigner, recordVerifier } from '../../src/coord/index.js'
import { signAnnouncement } from '../../src/jobs/index.js'
import { announcementAnswers, ownAnnouncements } from '../../src/processor/announcement-answers.js'
import { DEFAULT_PRICING } from '../../src/protocol/index.js'
import type { RecordSigner } from '../../src/coord/index.js'

describe('answers to requests for announcements (announcementAnswers)', () => {
  beforeEach(() => { vi.useFakeTimers({ now: 10_000 }) })
  afterEach(() => { vi.useRealTimers() })

  it('a first request is answered at once; the requests within the interval after it, once at its end', () => {
    const published: number[] = []
    const answers = announcementAnswers({ clock: () => Date.now(), publishOwn: () => { published.push(Date.now()) } }, { intervalMs: 1_000 })
    answers.requested()
    expect(published).toEqual([10_000])
    // a flood of requests (anyone may ask): one answer at the interval's end, not one each
    for (let i = 0; i < 50; i++) {
      vi.advanceTimersByTime(10)
      answers.requested()
    }
    expect(published).toEqual([10_000])
    vi.advanceTimersByTime(500)
    expect(published).toEqual([10_000, 11_000])
    // quiet: nothing more, and a request after the interval is answered at once again
    vi.advanceTimersByTime(5_000)
    expect(published).toEqual([10_000, 11_000])
    answers.requested()
    expect(published).toEqual([10_000, 11_000, 16_000])
  })

  it('a request waiting for its interval is not answered after stop', () => {
    const published: number[] = []
    const answers = announcementAnswers({ clock: () => Date.now(), publishOwn: () => { published.push(Date.now()) } }, { intervalMs: 1_000 })
    answers.requested()
    answers.requested()
    answers.stop()
    vi.advanceTimersByTime(2_000)
    expect(published).toEqual([10_000])
  })
})

describe('what an answer re-publishes (ownAnnouncements)', () => {
  it('the index entries this peer signed as announcements under their own job\'s key; none of another signer\'s, of another domain, under another key, nor garbage', async () => {
    const [a, b] = await Promise.all([generateKeyPair('Ed25519'), generateKeyPair('Ed25519')])
    const [ida, idb] = [a, b].map(k => peerIdFromPrivateKey(k).toString())
    const [sa, sb] = [recordSigner(a, ida), recordSigner(b, idb)]
    const [job, other] = [testJob(1, 2), testJob(1, 2)]
    const announce = (signer: RecordSigner, j: typeof job): Uint8Array => signAnnouncement(signer, j.spec, j.jobId, j.specCid, DEFAULT_PRICING)
    const mine = announce(sa, job)
    const index: Array<[string, Uint8Array]> = [
      [job.jobId.toLowerCase(), mine],
      ['0x' + 'ab'.repeat(32), announce(sa, other)],
      [other.jobId.toLowerCase(), announce(sb, other)],
      ['0x03', sa.sign('jobmesh/another-domain', new Uint8Array([3]))],
      ['0x04', new Uint8Array([9, 9, 9])]
    ]
    expect(ownAnnouncements(index, recordVerifier(), ida)).toEqual([mine])
    expect(ownAnnouncements(undefined, recordVerifier(), ida)).toEqual([])
  })
})
