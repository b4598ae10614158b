import { afterEach, describe, expect, it, vi } from 'vitest'
import { rechecks } from '../../src/observe/rechecks.js'

afterEach(() => { vi.useRealTimers() })

describe('rechecks', () => {
  it('looks again after 1, 2, 4... x the first wait up to the most, replaces a pending look, and gives a key up after a while', () => {
    vi.useFakeTimers()
    let now = 0
    const r = rechecks({ firstMs: 100, maxMs: 300, giveUpMs: 1_000, clock: () => now })
    const looks: number[] = []
    const look = (): void => { looks.push(now) }
    const step = (ms: number): void => { now += ms; vi.advanceTimersByTime(ms) }
    expect(r.later('a', look)).toBe(true)
    step(99)
    expect(looks).toEqual([])
    step(1)
    expect(looks).toEqual([100])
    expect(r.later('a', look)).toBe(true) // 200 ms now
    step(200)
    expect(looks).toEqual([100, 300])
    expect(r.later('a', look)).toBe(true) // 400, capped at 300
    // asked again before it fired: the pending look is replaced, not added
    expect(r.later('a', look)).toBe(true)
    step(300)
    expect(looks).toEqual([100, 300, 600])
    step(400) // 1 000 ms since the first look
    expect(r.later('a', look)).toBe(false)
    step(1_000)
    expect(looks).toEqual([100, 300, 600])
    // forgotten: a new round of looks starts from the first wait
    expect(r.later('a', look)).toBe(true)
    step(100)
    expect(looks).toHaveLength(4)
    r.forget('a')
    expect(r.later('b', look)).toBe(true)
    r.stop()
    step(1_000)
    expect(looks).toHaveLength(4)
    expect(r.later('c', look)).toBe(false)
  })
})
