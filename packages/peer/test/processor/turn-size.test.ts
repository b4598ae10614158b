import { describe, expect, it } from 'vitest'
import { DEFAULT_WANT, MAX_WANT } from '../../src/processor/constants.js'
import { TurnSize } from '../../src/processor/turn-size.js'

describe('TurnSize (MicroJobs asked for per queue turn)', () => {
  it('asks for DEFAULT_WANT until a MicroJob has run here', () => {
    expect(new TurnSize().want()).toBe(DEFAULT_WANT)
    expect(new TurnSize({ max: 4 }).want()).toBe(4)
  })

  it('asks for about a turn of work: many short MicroJobs, few long ones, never 0 and never above the most', () => {
    const short = new TurnSize({ turnMs: 1_000 })
    short.record(50)
    expect(short.want()).toBe(20)
    const instant = new TurnSize({ turnMs: 1_000 })
    instant.record(0)
    expect(instant.want()).toBe(MAX_WANT)
    const long = new TurnSize({ turnMs: 1_000 })
    long.record(8_000)
    expect(long.want()).toBe(1)
  })

  it('asks for longer turns in a job with many peers: about TURN_MS_PER_PEER of work per peer', () => {
    const size = new TurnSize({ turnMs: 1_000, max: 1_000 })
    size.record(100)
    expect(size.want(1)).toBe(10)
    expect(size.want(10)).toBe(10) // 10 x 100 ms = 1 s: the turn length itself
    expect(size.want(16)).toBe(16) // 1.6 s turns
    expect(size.want(100)).toBe(100) // 10 s turns: each peer gets ~10 CRDT updates per second, not 100
  })

  it('follows the run time as it changes, smoothing single outliers', () => {
    const size = new TurnSize({ turnMs: 1_000 })
    for (let i = 0; i < 10; i++) size.record(100)
    expect(size.want()).toBe(10)
    size.record(1_000) // one slow run: the mean moves, not to 1
    expect(size.want()).toBeGreaterThan(2)
    expect(size.want()).toBeLessThan(10)
    for (let i = 0; i < 20; i++) size.record(500)
    expect(size.want()).toBe(2)
  })

  it('asks for the next turn about aheadMs of work before this one ends: the last MicroJob at least, a quarter at most', () => {
    const size = new TurnSize({ turnMs: 1_000, aheadMs: 250 })
    expect(size.lead(16)).toBe(1) // no run time measured yet: at the last MicroJob
    size.record(50)
    expect(size.lead(20)).toBe(5) // 250 ms of 50 ms MicroJobs
    expect(size.lead(8)).toBe(2) // a quarter of a short turn
    expect(size.lead(2)).toBe(1)
    const long = new TurnSize({ aheadMs: 250 })
    long.record(2_000)
    expect(long.lead(4)).toBe(1) // one long MicroJob covers the handoff
    const instant = new TurnSize({ aheadMs: 250 })
    instant.record(0)
    expect(instant.lead(64)).toBe(16)
  })
})
