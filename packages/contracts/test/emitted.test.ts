import { describe, expect, it } from 'vitest'
import { emitted } from '../src/client/emitted.js'
import type { TxResult } from '../src/index.js'

describe('emitted: what an action reports comes from its event, or it says the event is missing', () => {
  it('returns the named event\'s arguments; a transaction without it is a ChainRequestError naming the call and the tx', () => {
    const tx = { hash: '0xabc', events: [{ name: 'Claimed', args: { amount: 7n } }] } as unknown as TxResult
    expect(emitted(tx, 'Claimed', 'IncentivePool.claim')).toEqual({ amount: 7n })
    expect(() => emitted(tx, 'StakeWithdrawn', 'NodeRegistry.withdraw')).toThrow(expect.objectContaining({
      name: 'ChainRequestError', message: 'NodeRegistry.withdraw (tx 0xabc) emitted no StakeWithdrawn event'
    }))
  })
})
