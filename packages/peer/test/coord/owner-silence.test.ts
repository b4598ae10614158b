import { describe, expect, it } from 'vitest'
import { OwnerSilence } from '../../src/coord/owner-silence.js'
import type { Lease } from '../../src/coord/leases.js'

const TICK = 500
const TIMEOUT = 3_000

/** A member's failover role driven by a fake clock that ticks every `TICK` ms from 0. */
function member (jitterMs = 0): { silence: OwnerSilence, at: (t: number) => void, now: () => number } {
  let now = 0
  const silence = new OwnerSilence({ ownerTimeoutMs: TIMEOUT, jitterMs, tickMs: TICK, now })
  return { silence, at: (t) => { now = t; silence.tick(t) }, now: () => now }
}

const context = { self: 'me', owner: 'owner', epoch: 1, isOpen: (l: Lease) => l.expiresAt === 0 }

describe('OwnerSilence (the failover role of a room member)', () => {
  it('fails over only on the second tick past the timeout, never on the first', () => {
    const { silence, at } = member()
    const verdicts: string[] = []
    for (let t = TICK; t <= 4_000; t += TICK) {
      at(t)
      verdicts.push(`${t}:${silence.decide(t)}`)
    }
    expect(verdicts).toEqual(['500:alive', '1000:alive', '1500:alive', '2000:alive', '2500:alive', '3000:alive', '3500:suspect', '4000:failover'])
  })

  it('a sign of life between the two ticks cancels the suspicion', () => {
    const { silence, at } = member()
    for (let t = TICK; t <= 3_500; t += TICK) at(t)
    expect(silence.decide(3_500)).toBe('suspect')
    silence.heard(3_700)
    at(4_000)
    expect(silence.decide(4_000)).toBe('alive')
    // and the clock starts again from the sign of life
    for (let t = 4_500; t <= 6_500; t += TICK) { at(t); expect(silence.decide(t)).toBe('alive') }
    at(7_000)
    expect(silence.decide(7_000)).toBe('suspect')
  })

  it('does not count a stalled event loop as silence', () => {
    const { silence, at } = member()
    at(500)
    // the loop was blocked for 4 s (the next tick comes at 5 000 instead of 1 000): nothing could be read meanwhile,
    // so the last sign of life (0) moves on by the stall
    at(5_000)
    expect(silence.heardAt).toBe(4_000)
    expect(silence.decide(5_000)).toBe('alive')
  })

  it('counts the owner\'s other gossip (passed only while its MacroJob lease is live) and the jitter', () => {
    const { silence, at } = member(400)
    for (let t = TICK; t <= 3_000; t += TICK) at(t)
    // 3 000 + 400 jitter: still within the window at 3 400
    expect(silence.decide(3_400)).toBe('alive')
    at(3_500)
    expect(silence.decide(3_500, 2_000)).toBe('alive')
    at(5_500)
    expect(silence.decide(5_500)).toBe('suspect')
  })

  it('a renewal of the MacroJob lease by the owner, or a later term by anyone, is a sign of life; the first sight, own or open leases are not', () => {
    const { silence, at } = member()
    at(500)
    silence.watchLease(500, { owner: 'owner', term: 1, expiresAt: 15_000 }, context)
    expect(silence.heardAt).toBe(0) // first sight: only a baseline
    at(1_000)
    silence.watchLease(1_000, { owner: 'owner', term: 1, expiresAt: 15_000 }, context)
    expect(silence.heardAt).toBe(0) // unchanged record
    silence.watchLease(1_000, { owner: 'owner', term: 1, expiresAt: 16_000 }, context)
    expect(silence.heardAt).toBe(1_000) // renewed by the owner
    at(1_500)
    silence.watchLease(1_500, { owner: 'other', term: 1, expiresAt: 17_000 }, context)
    expect(silence.heardAt).toBe(1_000) // same epoch, not the owner
    silence.watchLease(1_500, { owner: 'me', term: 2, expiresAt: 17_000 }, context)
    expect(silence.heardAt).toBe(1_000) // our own claim
    silence.watchLease(1_500, { owner: 'other', term: 3, expiresAt: 0 }, context)
    expect(silence.heardAt).toBe(1_000) // released
    at(2_000)
    silence.watchLease(2_000, { owner: 'other', term: 3, expiresAt: 18_000 }, context)
    expect(silence.heardAt).toBe(2_000) // a later epoch is being opened elsewhere
  })
})
