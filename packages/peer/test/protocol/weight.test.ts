import { describe, expect, it } from 'vitest'
import { DEFAULT_STAKE_CAP, MAX_SCORE, contractWeight, createPrng, seedWeight } from '../../src/protocol/index.js'
import type { WeightInput } from '../../src/protocol/index.js'

const ETH = 10n ** 18n

describe('selection weight', () => {
  it('contract form: W = M * S * Q / (SCALE + Q) on the cap-normalised integers', () => {
    // S = 5/10 * 1e6 = 500 000, Q = 1000/2000 * 1e6 = 500 000 -> W = 500 000 * 500 000 / 1 500 000 = 166 666
    expect(contractWeight({ stake: 5n * ETH, score: 1000, sameModel: false })).toBe(166_666n)
    expect(contractWeight({ stake: 5n * ETH, score: 1000, sameModel: true })).toBe(333_333n)
    // above the caps saturates: S = Q = 1e6 -> W = 500 000
    expect(contractWeight({ stake: 50n * ETH, score: 5000, sameModel: false })).toBe(500_000n)
    // integer division: S = 1 * 1e6 / 3 = 333 333, Q = 1e6 -> 333 333 * 1e6 / 2e6 = 166 666
    expect(contractWeight({ stake: 1n, score: 2000, sameModel: false }, { stakeCap: 3n })).toBe(166_666n)
    expect(contractWeight({ stake: 0n, score: 0, sameModel: true })).toBe(0n)
    expect(contractWeight({ stake: 0n, score: 2000, sameModel: true })).toBe(0n)
  })

  it('seed form normalises by network maxima', () => {
    expect(seedWeight({ stake: 5n * ETH, score: 1000, sameModel: false }, { maxStake: 10n * ETH, maxScore: 2000 })).toBeCloseTo(0.5 * 0.5 / 1.5)
    expect(seedWeight({ stake: 5n * ETH, score: 1000, sameModel: false }, { maxStake: 5n * ETH, maxScore: 1000 })).toBeCloseTo(0.5)
    expect(seedWeight({ stake: 0n, score: 0, sameModel: true }, { maxStake: ETH, maxScore: 2000 })).toBe(0)
  })

  it('both forms rank nodes identically when the network maxima equal the caps', () => {
    const prng = createPrng(2024n)
    const nodes: WeightInput[] = []
    for (let i = 0; i < 60; i++) {
      nodes.push({
        stake: prng.next() % DEFAULT_STAKE_CAP + 1n,
        score: Number(prng.next() % BigInt(MAX_SCORE + 1)),
        sameModel: prng.next() % 2n === 0n
      })
    }
    nodes.push({ stake: DEFAULT_STAKE_CAP, score: MAX_SCORE, sameModel: false }) // the maxima are attained
    const maxima = { maxStake: DEFAULT_STAKE_CAP, maxScore: MAX_SCORE }
    const bySeed = nodes.map((n, i) => ({ i, w: seedWeight(n, maxima) })).sort((a, b) => b.w - a.w || a.i - b.i).map(x => x.i)
    const byContract = nodes.map((n, i) => ({ i, w: contractWeight(n) }))
      .sort((a, b) => (a.w === b.w ? a.i - b.i : a.w > b.w ? -1 : 1)).map(x => x.i)
    expect(byContract).toEqual(bySeed)
  })
})
