import { AbiCoder, keccak256 } from 'ethers'
import { describe, expect, it } from 'vitest'
import { createPrng, drawDistinct, weightedChoice } from '../../src/protocol/index.js'

describe('createPrng', () => {
  it('next() = keccak256(abi.encode(seed, counter++))', () => {
    const prng = createPrng(99n)
    const coder = AbiCoder.defaultAbiCoder()
    for (let c = 0; c < 3; c++) {
      expect(prng.next()).toBe(BigInt(keccak256(coder.encode(['uint256', 'uint256'], [99n, c]))))
    }
  })

  it('accepts a bytes32 seed as the same uint256', () => {
    expect(createPrng('0x' + '00'.repeat(31) + '63').next()).toBe(createPrng(99n).next())
    expect(() => createPrng('0x63')).toThrow(expect.objectContaining({ name: 'InvalidArgumentError' }))
  })
})

describe('weightedChoice', () => {
  it('frequencies match W_i / sum(W) (chi-square)', () => {
    const weights = [1n, 2n, 3n, 4n, 10n, 0n]
    const total = 20
    const draws = 20_000
    const counts = new Array(weights.length).fill(0)
    const prng = createPrng(7n)
    for (let n = 0; n < draws; n++) counts[weightedChoice(weights, prng)]++
    expect(counts[5]).toBe(0)
    let chi2 = 0
    for (let i = 0; i < 5; i++) {
      const expected = draws * Number(weights[i]) / total
      chi2 += (counts[i] - expected) ** 2 / expected
    }
    // 4 degrees of freedom: P(chi2 > 18.47) = 0.001; the PRNG is seeded so this is deterministic anyway
    expect(chi2).toBeLessThan(18.47)
  })

  it('throws a typed error when nothing has weight', () => {
    expect(() => weightedChoice([0n, 0n], createPrng(1n))).toThrow(expect.objectContaining({ name: 'NotEnoughCandidatesError' }))
    expect(() => weightedChoice([], createPrng(1n))).toThrow(expect.objectContaining({ name: 'NotEnoughCandidatesError' }))
    expect(() => weightedChoice([-1n, 2n], createPrng(1n))).toThrow(expect.objectContaining({ name: 'InvalidArgumentError' }))
  })
})

describe('drawDistinct', () => {
  it('draws k distinct indices, never excluded or zero-weight ones, deterministically', () => {
    const weights = [5n, 0n, 5n, 5n, 5n, 5n]
    for (let s = 0n; s < 50n; s++) {
      const chosen = drawDistinct(weights, 3, createPrng(s), [2])
      expect(new Set(chosen).size).toBe(3)
      expect(chosen).not.toContain(1)
      expect(chosen).not.toContain(2)
      expect(drawDistinct(weights, 3, createPrng(s), [2])).toEqual(chosen)
    }
  })

  it('equals successive weightedChoice calls with chosen weights zeroed', () => {
    const weights = [3n, 1n, 4n, 1n, 5n]
    const a = createPrng(11n)
    const b = createPrng(11n)
    const w = [...weights]
    const expected: number[] = []
    for (let j = 0; j < 3; j++) {
      const i = weightedChoice(w, b)
      expected.push(i)
      w[i] = 0n
    }
    expect(drawDistinct(weights, 3, a)).toEqual(expected)
  })

  it('throws when fewer than k candidates have weight', () => {
    expect(() => drawDistinct([1n, 1n, 0n], 3, createPrng(1n))).toThrow(expect.objectContaining({ name: 'NotEnoughCandidatesError' }))
    expect(() => drawDistinct([1n, 1n, 1n], 3, createPrng(1n), [0])).toThrow(expect.objectContaining({ name: 'NotEnoughCandidatesError' }))
  })
})
