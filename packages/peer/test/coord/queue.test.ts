import { describe, expect, it } from 'vitest'
import { fairBatch } from '../../src/coord/queue.js'
import type { BatchShare } from '../../src/coord/queue.js'

describe('fairBatch (the owner\'s batch for a requester)', () => {
  const share = (open: number, members: number, locked = 0, ownLocked = 0): BatchShare => ({ open, locked, ownLocked, members })

  it('is capped by want and maxBatch while many items are open', () => {
    expect(fairBatch(share(1_000, 2), 8, 16)).toBe(8)
    expect(fairBatch(share(1_000, 2), 32, 16)).toBe(16)
  })

  it('stays full-size until the last round, which is split so every member finishes together', () => {
    // 4 members ask in turn for a queue of 64: four full turns of 16, not a tail halving down to single items
    let open = 64
    let locked = 0
    const turns: number[] = []
    for (let m = 0; m < 4; m++) {
      const n = fairBatch(share(open, 4, locked), 16, 64)
      turns.push(n)
      open -= n
      locked += n
    }
    expect(turns).toEqual([16, 16, 16, 16])
    // the last 20 over 4 members, 3 of them busy with 8 each: the idle one takes its even share
    expect(fairBatch(share(20, 4, 24), 16, 64)).toBe(11) // ceil(44 / 4)
    expect(fairBatch(share(7, 4), 8, 16)).toBe(2)
  })

  it('leaves out what the requester still holds', () => {
    expect(fairBatch(share(30, 3, 30, 10), 32, 64)).toBe(10) // 60 / 3 - 10
    expect(fairBatch(share(2, 3, 30, 28), 32, 64)).toBe(1)
  })

  it('is at least one while anything is open and zero when nothing is', () => {
    expect(fairBatch(share(1, 8), 8, 16)).toBe(1)
    expect(fairBatch(share(0, 8), 8, 16)).toBe(0)
    expect(fairBatch(share(3, 0), 8, 16)).toBe(3)
  })
})
