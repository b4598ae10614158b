import { describe, expect, it } from 'vitest'
import { replayWindow } from '../../src/crdt/replay-window.js'
import type { ReplayWindow } from '../../src/crdt/replay-window.js'

const LAG = 1_000

/** What the topic guard does with a valid message: asks whether it is new and, if so, records it. */
function take (w: ReplayWindow, author: string, seqno: bigint, now: number): boolean {
  if (!w.fresh(author, seqno, now)) return false
  w.seen(author, seqno, now)
  return true
}

describe('replayWindow', () => {
  it('refuses a message of a quiet author once its later message is a lag old', () => {
    const w = replayWindow({ lagMs: LAG })
    expect(take(w, 'a', 10n, 0)).toBe(true)
    expect(take(w, 'a', 11n, 10)).toBe(true)
    expect(take(w, 'a', 10n, LAG + 10)).toBe(false)
    expect(take(w, 'a', 11n, LAG + 10)).toBe(false)
    expect(take(w, 'a', 12n, LAG + 20)).toBe(true)
  })

  it('refuses, within two lags, a replay of an author that never stops sending', () => {
    const w = replayWindow({ lagMs: LAG })
    let seqno = 100n
    const recorded: Array<{ seqno: bigint, at: number }> = []
    for (let t = 0; t <= 5 * LAG; t += 10) {
      seqno++
      expect(take(w, 'a', seqno, t)).toBe(true)
      if (t % 500 === 0) recorded.push({ seqno, at: t })
      // every recorded message older than two lags is a replay now (checked between the author's messages)
      for (const r of recorded) {
        if (t - r.at >= 2 * LAG) expect(take(w, 'a', r.seqno, t)).toBe(false)
      }
    }
  })

  it('accepts an honest author\'s messages out of order within a lag, each of them', () => {
    const w = replayWindow({ lagMs: LAG })
    expect(take(w, 'a', 5n, 0)).toBe(true)
    expect(take(w, 'a', 8n, 100)).toBe(true)
    expect(take(w, 'a', 6n, 200)).toBe(true)
    expect(take(w, 'a', 7n, LAG + 99)).toBe(true)
  })

  it('keeps authors apart and takes a restarted author\'s higher seqnos', () => {
    const w = replayWindow({ lagMs: LAG })
    expect(take(w, 'a', 1_000n, 0)).toBe(true)
    expect(take(w, 'b', 5n, 0)).toBe(true)
    expect(take(w, 'b', 6n, 10 * LAG)).toBe(true)
    expect(take(w, 'a', 5_000_000n, 10 * LAG)).toBe(true)
    expect(take(w, 'a', 1_000n, 10 * LAG)).toBe(false)
  })

  it('remembers only the messages found valid: a flood of invalid ones from fresh keys leaves the table as it was', () => {
    const w = replayWindow({ lagMs: LAG, maxAuthors: 2 })
    expect(take(w, 'victim', 1n, 0)).toBe(true)
    for (let i = 0; i < 100; i++) expect(w.fresh(`fresh-${i}`, 1n, 10)).toBe(true)
    expect(take(w, 'victim', 1n, 2 * LAG)).toBe(false)
  })

  it('forgets the author heard from longest ago past maxAuthors, not the active ones', () => {
    const w = replayWindow({ lagMs: LAG, maxAuthors: 2 })
    expect(take(w, 'a', 1n, 0)).toBe(true)
    expect(take(w, 'b', 1n, 0)).toBe(true)
    expect(take(w, 'a', 2n, 10)).toBe(true)
    // c makes room: b was heard from last before a
    expect(take(w, 'c', 1n, 20)).toBe(true)
    expect(take(w, 'a', 2n, 2 * LAG)).toBe(false)
    // b is unknown again, as after a restart of this peer
    expect(take(w, 'b', 1n, 2 * LAG)).toBe(true)
  })
})
