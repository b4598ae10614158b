import { describe, expect, it } from 'vitest'
import { ChainRevertError, ChainTimeoutError, revertName } from '../src/index.js'

describe('revertName', () => {
  it('is the decoded custom error of a reverted call, and nothing for any other failure', () => {
    expect(revertName(new ChainRevertError('settle reverted: WrongStatus()', 'WrongStatus'))).toBe('WrongStatus')
    expect(revertName(new ChainTimeoutError('no receipt'))).toBeUndefined()
    expect(revertName(new Error('WrongStatus'))).toBeUndefined()
    // an object that only looks like a revert is not one
    expect(revertName(Object.assign(new Error('x'), { errorName: 'WrongStatus' }))).toBeUndefined()
    expect(revertName(undefined)).toBeUndefined()
  })
})
