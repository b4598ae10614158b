import { describe, expect, it } from 'vitest'
import { DEFAULT_PRICING, taskValue, taskValueToNumber } from '../../src/protocol/index.js'
import { PRICING_TABLE, TABLE_MS_PER_MICRO_JOB } from '../fixtures/pricing-table.js'

const CNX = 10n ** 18n

describe('task pricing (the spec\'s pricing table)', () => {
  for (const row of PRICING_TABLE) {
    it(`${row.fee / CNX} CNX, ${row.microJobs} image(s) at 20 s, overhead ${row.overheadMs} ms -> ${row.shown}`, () => {
      const value = taskValue(row.fee, row.microJobs, { overheadMs: row.overheadMs, msPerMicroJob: TABLE_MS_PER_MICRO_JOB })
      expect(value).toBe(row.value)
      expect(Number(taskValueToNumber(value).toFixed(3))).toBe(row.shown)
    })
  }

  it('is floor(fee * 1000 / estimated ms), wei per second', () => {
    expect(taskValue(7n, 1, { overheadMs: 1_000, msPerMicroJob: 1_000 })).toBe(3n) // 7000 / 2000 = 3.5 -> 3
    expect(taskValue(0n, 5, DEFAULT_PRICING)).toBe(0n)
    expect(taskValue(1n, 1, { overheadMs: 0, msPerMicroJob: 1 })).toBe(1000n)
    // the largest job the escrow takes: uint32 x uint32 MicroJobs, uint32 times, a uint96 fee
    const max32 = 0xffff_ffff
    expect(taskValue(2n ** 96n - 1n, BigInt(max32) * BigInt(max32), { overheadMs: max32, msPerMicroJob: max32 }))
      .toBe((2n ** 96n - 1n) * 1000n / (BigInt(max32) + BigInt(max32) ** 3n))
  })

  it('takes only the network\'s times: 64 MicroJobs on the default network are 30 s + 64 x 1 s', () => {
    expect(DEFAULT_PRICING).toEqual({ overheadMs: 30_000, msPerMicroJob: 1_000 })
    expect(taskValue(94n * CNX, 64, DEFAULT_PRICING)).toBe(CNX)
  })

  it('orders tasks by value', () => {
    const pricing = { overheadMs: 30_000, msPerMicroJob: 20_000 }
    expect(taskValue(15n * CNX, 2, pricing) > taskValue(10n * CNX, 1, pricing)).toBe(true)
  })

  it('rejects bad input with a typed error', () => {
    const bad = [
      () => taskValue(-1n, 1, DEFAULT_PRICING),
      () => taskValue(1n, 0, DEFAULT_PRICING),
      () => taskValue(1n, 1.5, DEFAULT_PRICING),
      () => taskValue(1n, -1n, DEFAULT_PRICING),
      () => taskValue(1n, 1, { overheadMs: 0, msPerMicroJob: 0 }),
      () => taskValue(1n, 1, { overheadMs: -1, msPerMicroJob: 1 }),
      () => taskValue(1n, 1, { overheadMs: 0.5, msPerMicroJob: 1 }),
      () => taskValue(1n, 1, { overheadMs: 0, msPerMicroJob: 2 ** 32 })
    ]
    for (const f of bad) expect(f).toThrow(expect.objectContaining({ name: 'InvalidArgumentError' }))
  })
})
