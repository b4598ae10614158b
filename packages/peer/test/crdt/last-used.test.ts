import { describe, expect, it } from 'vitest'
import { lastUsed } from '../../src/crdt/last-used.js'

describe('lastUsed', () => {
  it('pushes out the entry used longest ago, not the one touched since, and peek moves nothing', () => {
    const table = lastUsed<number>(2)
    expect(table.touch('a', () => 1)).toBe(1)
    expect(table.touch('b', () => 2)).toBe(2)
    expect(table.touch('a', () => 9)).toBe(1)
    expect(table.peek('b')).toBe(2)
    // b was used longest ago (a was touched after it; the peek does not count)
    table.touch('c', () => 3)
    expect(table.peek('b')).toBeUndefined()
    expect([table.peek('a'), table.peek('c')]).toEqual([1, 3])
  })
})
