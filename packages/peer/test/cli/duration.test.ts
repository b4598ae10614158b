import { describe, expect, it } from 'vitest'
import { duration } from '../../src/cli/options.js'

describe('duration (--retain)', () => {
  it('reads minutes, hours and days, in any case, with or without a space, and forever', () => {
    expect(duration('7d')).toBe(7 * 86_400_000)
    expect(duration('36h')).toBe(36 * 3_600_000)
    expect(duration('90 m')).toBe(90 * 60_000)
    expect(duration('1.5D')).toBe(1.5 * 86_400_000)
    expect(duration('0m')).toBe(0)
    expect(duration('forever')).toBe(Infinity)
  })

  it('refuses what is not a duration, naming an example', () => {
    for (const bad of ['', '7', '-1d', '3w', 'd', '1e3h', 'never', '99999999999999d']) {
      expect(() => duration(bad), bad).toThrow(expect.objectContaining({ code: 'commander.invalidArgument', message: expect.stringContaining('expected a duration such as 7d') }))
    }
  })
})
