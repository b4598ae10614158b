import { describe, expect, it } from 'vitest'
import { estimatedSeconds, taskValue, taskValueToNumber } from '../../src/protocol/index.js'

const CNX = 10n ** 18n

describe('task pricing (seed "Task Pricing" table)', () => {
  const rows = [
    { price: 10n * CNX, images: 1, overhead: 0, expected: 0.5 },
    { price: 15n * CNX, images: 2, overhead: 0, expected: 0.375 },
    { price: 10n * CNX, images: 1, overhead: 30, expected: 0.2 },
    { price: 15n * CNX, images: 2, overhead: 30, expected: 0.214 }
  ]
  for (const row of rows) {
    it(`${row.price / CNX} CNX, ${row.images} image(s) at 20 s, overhead ${row.overhead} s -> ${row.expected}`, () => {
      const secs = estimatedSeconds({ overheadSeconds: row.overhead, secondsPerMicroJob: 20 }, row.images)
      expect(secs).toBe(row.overhead + 20 * row.images)
      const value = taskValue(row.price, secs)
      expect(Number(taskValueToNumber(value).toFixed(3))).toBe(row.expected)
    })
  }

  it('is exact wei per second, floored at whole milliseconds', () => {
    expect(taskValue(10n * CNX, 20)).toBe(CNX / 2n)
    expect(taskValue(15n * CNX, 70)).toBe(15n * CNX / 70n)
    expect(taskValue(1000n, 0.0004)).toBe(1_000_000n) // rounds to 0 ms, clamped to 1 ms
    expect(taskValue(7n, 2.0004)).toBe(3n) // 2000 ms: 7 * 1000 / 2000 = 3.5 -> 3
  })

  it('orders tasks by value', () => {
    const a = taskValue(10n * CNX, estimatedSeconds({ overheadSeconds: 30, secondsPerMicroJob: 20 }, 1))
    const b = taskValue(15n * CNX, estimatedSeconds({ overheadSeconds: 30, secondsPerMicroJob: 20 }, 2))
    expect(b > a).toBe(true)
  })

  it('rejects bad input with a typed error', () => {
    expect(() => taskValue(-1n, 1)).toThrow(expect.objectContaining({ name: 'InvalidArgumentError' }))
    expect(() => taskValue(1n, Number.NaN)).toThrow(expect.objectContaining({ name: 'InvalidArgumentError' }))
    expect(() => estimatedSeconds({ overheadSeconds: 0, secondsPerMicroJob: 1 }, -1)).toThrow(expect.objectContaining({ name: 'InvalidArgumentError' }))
  })
})
