import { describe, expect, it } from 'vitest'
import { isTakeoverTurn, takeoverOrder } from '../../src/settlement/takeover.js'

const JOB = '0x' + 'ab'.repeat(32)
const PEERS = ['12D3KooWA', '12D3KooWB', '12D3KooWC', '12D3KooWD']

describe('takeover order and turns', () => {
  it('every peer computes the same order from the same set, whatever order it lists the peers in', () => {
    const order = takeoverOrder(JOB, 0, PEERS)
    expect(order).toHaveLength(4)
    expect(new Set(order)).toEqual(new Set(PEERS))
    expect(takeoverOrder(JOB, 0, [...PEERS].reverse())).toEqual(order)
    expect(takeoverOrder(JOB.toUpperCase().replace('0X', '0x'), 0, [PEERS[2], PEERS[0], PEERS[3], PEERS[1], PEERS[0]])).toEqual(order)
  })

  it('a dead candidate drops out and the others keep their relative order', () => {
    const order = takeoverOrder(JOB, 0, PEERS)
    const without = takeoverOrder(JOB, 0, PEERS.filter(p => p !== order[0]))
    expect(without).toEqual(order.slice(1))
  })

  it('the order depends on the job and the round, so one peer is not always first', () => {
    const firsts = new Set<string>()
    for (let round = 0; round < 16; round++) firsts.add(takeoverOrder(JOB, round, PEERS)[0])
    expect(firsts.size).toBeGreaterThan(1)
  })

  it('nobody takes over before the grace time; then one candidate per step, in order', () => {
    const order = takeoverOrder(JOB, 0, PEERS)
    const grace = 10_000
    const step = 5_000
    const turns = (elapsed: number): string[] => order.filter(p => isTakeoverTurn(order, p, elapsed, grace, step))
    expect(turns(0)).toEqual([])
    expect(turns(9_999)).toEqual([])
    expect(turns(10_000)).toEqual([order[0]])
    expect(turns(14_999)).toEqual([order[0]])
    expect(turns(15_000)).toEqual(order.slice(0, 2))
    expect(turns(25_000)).toEqual(order)
    expect(isTakeoverTurn(order, '12D3KooWnot-a-candidate', 60_000, grace, step)).toBe(false)
  })
})
