import { makeError } from 'ethers'
import { describe, expect, it } from 'vitest'
import { isUnreachable, wrapChainError } from '../src/client/wrap-error.js'

/** An error as Node's net module raises it (ethers passes it through as it is). */
function nodeError (code: string, message: string): Error {
  return Object.assign(new Error(message), { code, syscall: 'connect' })
}

describe('wrapChainError', () => {
  it('reads a dead endpoint from the error codes Node and undici set', () => {
    expect(isUnreachable(nodeError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:9'))).toBe(true)
    expect(isUnreachable(nodeError('ENOTFOUND', 'getaddrinfo ENOTFOUND nowhere.invalid'))).toBe(true)
    expect(isUnreachable(new TypeError('fetch failed', { cause: { code: 'UND_ERR_SOCKET' } }))).toBe(true)
    expect(isUnreachable(makeError('request timed out', 'TIMEOUT'))).toBe(true)
    expect(wrapChainError(nodeError('ECONNRESET', 'socket hang up'), 'reading')).toMatchObject({ name: 'RpcUnreachableError' })
  })

  it('does not take an answer that only mentions a network failure in its text for one', () => {
    const answer = makeError('execution reverted: "ECONNREFUSED fetch failed socket hang up"', 'UNKNOWN_ERROR')
    expect(isUnreachable(answer)).toBe(false)
    expect(isUnreachable(new Error('connect ECONNREFUSED 127.0.0.1:9'))).toBe(false)
    expect(wrapChainError(answer, 'reading')).toMatchObject({ name: 'ChainRequestError' })
  })
})
