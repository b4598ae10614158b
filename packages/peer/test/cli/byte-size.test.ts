import { describe, expect, it } from 'vitest'
import { byteSize } from '../../src/cli/options.js'

describe('byteSize (--max-job-output)', () => {
  it('reads bytes, powers of 1000 and of 1024, in any case, with or without a space', () => {
    expect(byteSize('1048576')).toBe(1_048_576)
    expect(byteSize('500MB')).toBe(500_000_000)
    expect(byteSize('20GiB')).toBe(20 * 2 ** 30)
    expect(byteSize('1.5 gib')).toBe(1.5 * 2 ** 30)
    expect(byteSize('2 TB')).toBe(2e12)
    expect(byteSize('64b')).toBe(64)
  })

  it('refuses what is not a positive size, naming an example', () => {
    for (const bad of ['', '0', '-1', '12XB', 'GiB', '1e9', '0x10', '0.1B', '99999999 TiB']) {
      expect(() => byteSize(bad), bad).toThrow(expect.objectContaining({ code: 'commander.invalidArgument', message: expect.stringContaining('expected a size such as 20GiB') }))
    }
  })
})
