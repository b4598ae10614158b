import { describe, expect, it } from 'vitest'
import { EVEN_SPLIT_MIN_ITEMS } from '../../src/coord/constants.js'
import { QueueSnapshot } from '../../src/coord/pb/coord.js'
import { LOCKED, fairBatch, fromWire, toWire } from '../../src/coord/queue.js'
import type { BatchShare, QueueState } from '../../src/coord/queue.js'

/** A queue's counts: `size` items, `open` of them open, over `members` known members. */
function share (size: number, open: number, members: number, more: Partial<BatchShare> = {}): BatchShare {
  return { size, open, members, locked: 0, ownLocked: 0, roomPeers: 0, ...more }
}

describe('fairBatch (the owner\'s batch for a requester)', () => {
  it('is capped by want and maxBatch while many items are open', () => {
    expect(fairBatch(share(1_000, 1_000, 2), 8, 16)).toBe(8)
    expect(fairBatch(share(1_000, 1_000, 2), 32, 16)).toBe(16)
  })

  it('a large queue stays full-size until its last round, which is split so every member finishes together', () => {
    // 4 members ask in turn for a queue of 64: four full turns of 16, not a tail halving down to single items
    let open = 64
    let locked = 0
    const turns: number[] = []
    for (let m = 0; m < 4; m++) {
      const n = fairBatch(share(64, open, 4, { locked }), 16, 64)
      turns.push(n)
      open -= n
      locked += n
    }
    expect(turns).toEqual([16, 16, 16, 16])
    // the last 20 of 64 over 4 members, 3 of them busy with 8 each: the idle one takes its even share
    expect(fairBatch(share(64, 20, 4, { locked: 24 }), 16, 64)).toBe(11) // ceil(44 / 4)
    // less what the requester still holds
    expect(fairBatch(share(64, 30, 3, { locked: 30, ownLocked: 10 }), 32, 64)).toBe(10) // 60 / 3 - 10
    expect(fairBatch(share(64, 2, 3, { locked: 30, ownLocked: 28 }), 32, 64)).toBe(1)
  })

  it('a large queue counts the room\'s other peers as members: a lone first asker leaves them their share', () => {
    expect(fairBatch(share(64, 64, 1), 64, 64)).toBe(64)
    expect(fairBatch(share(64, 64, 1, { roomPeers: 3 }), 64, 64)).toBe(16)
  })

  it('a small queue halves an even split down to single items, so a small job spreads over the peers', () => {
    const size = EVEN_SPLIT_MIN_ITEMS - 1
    expect(fairBatch(share(size, size, 1, { roomPeers: 3 }), 64, 64)).toBe(Math.floor(size / 2))
    expect(fairBatch(share(size, 20, 4), 8, 16)).toBe(2) // 20 / (4 x 2)
    expect(fairBatch(share(size, 7, 4), 8, 16)).toBe(1)
    // the same counts in a large queue: the even split
    expect(fairBatch(share(EVEN_SPLIT_MIN_ITEMS, 20, 4), 8, 16)).toBe(5)
  })

  it('is at least one while anything is open and zero when nothing is', () => {
    expect(fairBatch(share(8, 1, 8), 8, 16)).toBe(1)
    expect(fairBatch(share(8, 0, 8), 8, 16)).toBe(0)
    expect(fairBatch(share(8, 3, 0), 8, 16)).toBe(1)
    expect(fairBatch(share(64, 3, 0), 8, 16)).toBe(3)
  })
})

describe('snapshot wire form (toWire / fromWire)', () => {
  const A = '12D3KooWLM7rX45ens9Zvu4LtFkkT7AgJ9bjcnjdsgTD7VDC9ZKi'
  const B = '12D3KooWB4AGJAN8tQK9JdtW9p9fP5FfeKt89qG7wSxUECmN73Jn'
  function locked (size: number, holders: string[]): QueueState {
    const states = new Uint8Array(size).fill(LOCKED)
    const locks = new Map([...states.keys()].map(i => [i, { holder: holders[i % holders.length], leaseTerm: 1 + (i % 3) }]))
    return { macroIndex: 2, epoch: 1, term: 4, owner: A, prevOwner: B, version: 7, states, locks, pending: [B] }
  }

  it('round-trips the locks, naming each holder once: 128 locks of two holders fit in about 1 KB', () => {
    const state = locked(128, [A, B])
    const bytes = QueueSnapshot.encode(toWire(state))
    expect(bytes.length).toBeLessThan(1_200)
    const back = fromWire(QueueSnapshot.decode(bytes), 128, 2)
    expect(back.locks).toEqual(state.locks)
    expect(back.pending).toEqual([B])
  })

  it('refuses a lock that names a holder the snapshot does not list', () => {
    const wire = toWire(locked(4, [A]))
    wire.locks[3].holder = 1
    expect(() => fromWire(QueueSnapshot.decode(QueueSnapshot.encode(wire)), 4, 2)).toThrow(expect.objectContaining({ name: 'MalformedMessageError' }))
  })
})
