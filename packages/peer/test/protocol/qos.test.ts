import { describe, expect, it } from 'vitest'
import {
  DEFAULT_INITIAL_SCORE, qosRatio, roundScore, shouldKickOut, taskScore, timeoutScore, vramScore, windowedScore
} from '../../src/protocol/index.js'

describe('QoS', () => {
  it('round scores by submission order, in hundredths', () => {
    expect([1, 2, 3, 4, 100].map(roundScore)).toEqual([1000, 500, 200, 200, 200])
    expect(roundScore(undefined)).toBe(0)
    expect(() => roundScore(0)).toThrow(expect.objectContaining({ name: 'InvalidArgumentError' }))
  })

  it('task score = commit + reveal, at most 2000', () => {
    expect(taskScore(1, 1)).toBe(2000)
    expect(taskScore(2, 3)).toBe(700)
    expect(taskScore(1, undefined)).toBe(1000)
    expect(taskScore(undefined, undefined)).toBe(0)
  })

  it('windowed score is the floored mean of the last W tasks, initial score without history', () => {
    expect(windowedScore([])).toBe(DEFAULT_INITIAL_SCORE)
    expect(windowedScore([2000, 1000, 0], { window: 2 })).toBe(500)
    expect(windowedScore([2000, 1000, 700])).toBe(1233)
    const history = [...new Array(5).fill(0), ...new Array(10).fill(2000)]
    expect(windowedScore(history)).toBe(2000)
  })

  it('kicks out only below the threshold over a full window', () => {
    expect(shouldKickOut(new Array(9).fill(0))).toBe(false)
    expect(shouldKickOut(new Array(10).fill(0))).toBe(true)
    expect(shouldKickOut(new Array(10).fill(400))).toBe(false)
    expect(shouldKickOut([...new Array(9).fill(399), 399])).toBe(true)
    expect(shouldKickOut([...new Array(10).fill(0), ...new Array(10).fill(1000)])).toBe(false)
    expect(shouldKickOut([0, 0, 0], { window: 3, threshold: 1 })).toBe(true)
  })

  it('B, R and P ratios, with the degenerate P case = 1', () => {
    expect(qosRatio(1000)).toBe(0.5)
    expect(vramScore(12, 48)).toBe(0.25)
    expect(vramScore(12, 0)).toBe(0)
    expect(timeoutScore(0, 0, 4)).toBe(1)
    expect(timeoutScore(4, 0, 4)).toBe(0)
    expect(timeoutScore(3, 2, 6)).toBe(0.75)
    expect(timeoutScore(2, 2, 2)).toBe(1)
  })
})
