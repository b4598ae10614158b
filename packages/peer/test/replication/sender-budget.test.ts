import { describe, expect, it } from 'vitest'
import { senderBudget } from '../../src/replication/sender-budget.js'

describe('senderBudget', () => {
  it('charges a manifest fetch once per CID and window, its outputs once per manifest, and starts over after the window', () => {
    let now = 0
    const budget = senderBudget({ maxRequestBytes: 600, maxSenderBytes: 1_000, windowMs: 60_000, clock: () => now })
    expect(budget.manifestLimit('a', 'm1')).toBe(600)
    budget.chargeManifest('a', 'm1', 100)
    budget.chargeOutputs('a', 'm1', 100, [{ size: 200 }, { size: 100 }])
    // a retry of m1 is free and may fetch no more than was charged
    expect(budget.manifestLimit('a', 'm1')).toBe(100)
    budget.chargeManifest('a', 'm1', 100)
    budget.chargeOutputs('a', 'm1', 100, [{ size: 200 }, { size: 100 }])
    // 400 spent: 600 left, capped by the request limit
    expect(budget.manifestLimit('a', 'm2')).toBe(600)
    // a failed fetch is charged its whole limit
    budget.chargeManifest('a', 'm2', 600)
    expect(() => budget.manifestLimit('a', 'm3')).toThrow(expect.objectContaining({ name: 'ReplicationBudgetError' }))
    // another sender has its own budget
    expect(budget.manifestLimit('b', 'm3')).toBe(600)
    now = 60_000
    expect(budget.manifestLimit('a', 'm3')).toBe(600)
  })

  it('refuses a request past its limit, a sender past its budget, and an entry without a valid size', () => {
    const budget = senderBudget({ maxRequestBytes: 500, maxSenderBytes: 700, windowMs: 60_000, clock: () => 0 })
    expect(() => { budget.chargeOutputs('a', 'm1', 100, [{ size: 401 }]) }).toThrow(expect.objectContaining({ name: 'ReplicationBudgetError' }))
    budget.chargeOutputs('a', 'm1', 100, [{ size: 400 }])
    expect(() => { budget.chargeOutputs('a', 'm2', 10, [{ size: 301 }]) }).toThrow(expect.objectContaining({ name: 'ReplicationBudgetError' }))
    budget.chargeOutputs('a', 'm2', 10, [{ size: 300 }])
    for (const size of [-1, 1.5, '3', undefined]) {
      expect(() => { budget.chargeOutputs('b', 'm', 0, [{ size }]) }).toThrow(expect.objectContaining({ name: 'ReplicaRefusedError' }))
    }
  })
})
