import { generateKeyPair } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { recordSigner, recordVerifier } from '../../src/coord/index.js'
import { ANNOUNCEMENT_DOMAIN } from '../../src/jobs/index.js'
import { announcementAnswers, ownAnnouncements } from '../../src/processor/announcement-answers.js'

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
  it('the index entries this peer signed as announcements, none of another signer\'s or of another domain, nor garbage', async () => {
    const [a, b] = await Promise.all([generateKeyPair('Ed25519'), generateKeyPair('Ed25519')])
    const [ida, idb] = [a, b].map(k => peerIdFromPrivateKey(k).toString())
    const [sa, sb] = [recordSigner(a, ida), recordSigner(b, idb)]
    const mine = sa.sign(ANNOUNCEMENT_DOMAIN, new Uint8Array([1]))
    const index: Array<[string, Uint8Array]> = [
      ['0x01', mine],
      ['0x02', sb.sign(ANNOUNCEMENT_DOMAIN, new Uint8Array([2]))],
      ['0x03', sa.sign('jobmesh/another-domain', new Uint8Array([3]))],
      ['0x04', new Uint8Array([9, 9, 9])]
    ]
    expect(ownAnnouncements(index, recordVerifier(), ida)).toEqual([mine])
    expect(ownAnnouncements(undefined, recordVerifier(), ida)).toEqual([])
  })
})
