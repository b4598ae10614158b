import { describe, expect, it } from 'vitest'
import { fairBatch } from '../../src/coord/queue.js'

describe('fairBatch (the owner\'s batch for a requester)', () => {
  it('is capped by want and maxBatch while many items are open', () => {
    expect(fairBatch(1_000, 2, 8, 16)).toBe(8)
    expect(fairBatch(1_000, 2, 32, 16)).toBe(16)
  })

  it('is half of an even split over the members seen, so the tail spreads over peers', () => {
    expect(fairBatch(64, 4, 16, 16)).toBe(8) // 64 / (4 x 2)
    expect(fairBatch(20, 4, 8, 16)).toBe(2)
    expect(fairBatch(7, 4, 8, 16)).toBe(1)
  })

  it('is at least one while anything is open and zero when nothing is', () => {
    expect(fairBatch(1, 8, 8, 16)).toBe(1)
    expect(fairBatch(0, 8, 8, 16)).toBe(0)
    expect(fairBatch(3, 0, 8, 16)).toBe(1)
  })
})
