import { describe, expect, it } from 'vitest'
import { isRefusal } from '../src/submit.js'

describe('a peer\'s failed answer to hold the inputs', () => {
  it('is a refusal when it names why it will not hold them, not when its time ran out or it stopped while fetching', () => {
    expect(isRefusal('InputTooLargeError')).toBe(true)
    expect(isRefusal('UnsafeUriError')).toBe(true)
    expect(isRefusal('TimeoutError')).toBe(false)
    expect(isRefusal('AbortError')).toBe(false)
    expect(isRefusal(undefined)).toBe(false)
  })
})
