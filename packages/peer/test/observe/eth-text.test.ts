import { describe, expect, it } from 'vitest'
import { ethText } from '../../src/observe/attach-events.js'

describe('ethText', () => {
  it('rounds wei to at most 6 decimals of ETH, half up (it cut 0.0011818 to 0.001181)', () => {
    expect(ethText(1181818181818180n)).toBe('0.001182')
    expect(ethText(66666666666666666n)).toBe('0.066667')
    expect(ethText(1_000_000_000_000_000_000n)).toBe('1')
    expect(ethText(1_999_999_600_000_000_000n)).toBe('2')
    // not zero, but under what 6 decimals show: written whole, not as 0 (a small job's pay read "claimed 0 ETH")
    expect(ethText(499_999_999_999n)).toBe('0.000000499999999999')
    expect(ethText(30_000_000_000n)).toBe('0.00000003')
    expect(ethText(0n)).toBe('0')
    expect(ethText(500_000_000_000n)).toBe('0.000001')
    expect(ethText(-1181818181818180n)).toBe('-0.001182')
  })
})
