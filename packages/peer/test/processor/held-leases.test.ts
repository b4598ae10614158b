import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { heldLeases } from '../../src/processor/held-leases.js'

describe('held leases (held-leases.ts)', () => {
  beforeEach(() => { vi.useFakeTimers() })
  afterEach(() => { vi.useRealTimers() })

  /** Renewals as `key@ms`, with the lease table's answer per key (held by default). */
  function table (lost = new Set<string>()): { renewed: string[], renew(key: string, term: number): unknown } {
    const renewed: string[] = []
    return { renewed, renew: (key) => { renewed.push(`${key}@${Date.now()}`); return lost.has(key) ? undefined : {} } }
  }

  it('renews every held lease once it is renewMs old, running or waiting, until it is dropped', () => {
    const t = table()
    const held = heldLeases({ renew: t.renew, clock: Date.now }, { renewMs: 1_000 })
    vi.setSystemTime(0)
    held.hold('m/0', 1)
    held.hold('m/1', 1)
    vi.advanceTimersByTime(999)
    expect(t.renewed).toEqual([])
    vi.advanceTimersByTime(1)
    expect(t.renewed).toEqual(['m/0@1000', 'm/1@1000'])
    held.drop('m/0')
    vi.advanceTimersByTime(1_000)
    expect(t.renewed).toEqual(['m/0@1000', 'm/1@1000', 'm/1@2000'])
    held.drop('m/1')
    vi.advanceTimersByTime(5_000)
    expect(t.renewed).toHaveLength(3)
    expect(vi.getTimerCount()).toBe(0)
  })

  it('a lease that ends before renewMs costs no renewal; one no longer this peer\'s is let go', () => {
    const t = table(new Set(['m/1']))
    const held = heldLeases({ renew: t.renew, clock: Date.now }, { renewMs: 1_000 })
    vi.setSystemTime(0)
    held.hold('m/0', 1)
    vi.advanceTimersByTime(900)
    held.drop('m/0')
    held.hold('m/1', 2)
    vi.advanceTimersByTime(3_000)
    // m/0 never renewed; m/1 tried once and, lost, not again
    expect(t.renewed).toEqual(['m/1@1900'])
    expect(vi.getTimerCount()).toBe(0)
  })

  it('keeps nothing after stop, not even a lock that arrives later', () => {
    const t = table()
    const held = heldLeases({ renew: t.renew, clock: Date.now }, { renewMs: 1_000 })
    held.hold('m/0', 1)
    held.stop()
    held.hold('m/1', 1)
    vi.advanceTimersByTime(5_000)
    expect(t.renewed).toEqual([])
    expect(vi.getTimerCount()).toBe(0)
  })
})
