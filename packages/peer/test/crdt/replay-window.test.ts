import { describe, expect, it } from 'vitest'
import { replayWindow } from '../../src/crdt/replay-window.js'

const LAG = 1_000

describe('replayWindow', () => {
  it('refuses a message of a quiet author once its later message is a lag old', () => {
    const w = replayWindow({ lagMs: LAG })
    expect(w.fresh('a', 10n, 0)).toBe(true)
    expect(w.fresh('a', 11n, 10)).toBe(true)
    expect(w.fresh('a', 10n, LAG + 10)).toBe(false)
    expect(w.fresh('a', 11n, LAG + 10)).toBe(false)
    expect(w.fresh('a', 12n, LAG + 20)).toBe(true)
  })

  it('refuses, within two lags, a replay of an author that never stops sending', () => {
    const w = replayWindow({ lagMs: LAG })
    let seqno = 100n
    const recorded: Array<{ seqno: bigint, at: number }> = []
    for (let t = 0; t <= 5 * LAG; t += 10) {
      seqno++
      expect(w.fresh('a', seqno, t)).toBe(true)
      if (t % 500 === 0) recorded.push({ seqno, at: t })
      // every recorded message older than two lags is a replay now (checked between the author's messages)
      for (const r of recorded) {
        if (t - r.at >= 2 * LAG) expect(w.fresh('a', r.seqno, t)).toBe(false)
      }
    }
  })

  it('accepts an honest author\'s messages out of order within a lag, each of them', () => {
    const w = replayWindow({ lagMs: LAG })
    expect(w.fresh('a', 5n, 0)).toBe(true)
    expect(w.fresh('a', 8n, 100)).toBe(true)
    expect(w.fresh('a', 6n, 200)).toBe(true)
    expect(w.fresh('a', 7n, LAG + 99)).toBe(true)
  })

  it('keeps authors apart and takes a restarted author\'s higher seqnos', () => {
    const w = replayWindow({ lagMs: LAG })
    expect(w.fresh('a', 1_000n, 0)).toBe(true)
    expect(w.fresh('b', 5n, 0)).toBe(true)
    expect(w.fresh('b', 6n, 10 * LAG)).toBe(true)
    expect(w.fresh('a', 5_000_000n, 10 * LAG)).toBe(true)
    expect(w.fresh('a', 1_000n, 10 * LAG)).toBe(false)
  })

  it('starts again past maxAuthors instead of growing', () => {
    const w = replayWindow({ lagMs: LAG, maxAuthors: 2 })
    expect(w.fresh('a', 1n, 0)).toBe(true)
    expect(w.fresh('b', 1n, 0)).toBe(true)
    expect(w.fresh('a', 1n, 2 * LAG)).toBe(false)
    expect(w.fresh('c', 1n, 2 * LAG)).toBe(true)
    // the table started again: a is unknown, as after a restart of this peer
    expect(w.fresh('a', 1n, 2 * LAG)).toBe(true)
  })
})
