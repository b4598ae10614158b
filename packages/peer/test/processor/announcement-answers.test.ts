import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { announcementAnswers } from '../../src/processor/announcement-answers.js'

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
