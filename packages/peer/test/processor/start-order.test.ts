import { describe, expect, it } from 'vitest'
import { startOrder } from '../../src/processor/start-order.js'

const PEERS = Array.from({ length: 16 }, (_, i) => `12D3KooWpeer${i}`)

describe('a job\'s start order (start-order.ts)', () => {
  it('every peer computes the same order from the same peers, whatever order it sees them in', () => {
    const positions = PEERS.map(self => startOrder(self, [...PEERS].reverse().filter(p => p !== self), '0xjob', 8).position)
    expect([...positions].sort((a, b) => a - b)).toEqual(PEERS.map((_, i) => i))
    // self listed among the peers or not: the same position
    expect(PEERS.map(self => startOrder(self, PEERS, '0xjob', 8).position)).toEqual(positions)
  })

  it('differs per job, so the same peers do not always claim first', () => {
    const first = (job: string): string | undefined => PEERS.find(self => startOrder(self, PEERS, job, 8).position === 0)
    const firsts = new Set(['0xa', '0xb', '0xc', '0xd', '0xe', '0xf'].map(first))
    expect(firsts.size).toBeGreaterThan(1)
  })

  it('prefers MacroJob position mod M, then the following ones in turn', () => {
    const self = PEERS.find(p => startOrder(p, PEERS, '0xjob', 4).position === 6) ?? ''
    const { rank } = startOrder(self, PEERS, '0xjob', 4)
    const order = [0, 1, 2, 3].sort((a, b) => Buffer.compare(Buffer.from(rank(a)), Buffer.from(rank(b))))
    expect(order).toEqual([2, 3, 0, 1])
  })
})
