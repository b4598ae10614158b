import { makeError } from 'ethers'
import { describe, expect, it } from 'vitest'
import { isNonceTaken, isUnreachable, wrapChainError } from '../src/client/wrap-error.js'

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
    // a refused connection asks whether the chain runs (a QA pass: jobmesh-dapp wait ended on a bare ECONNREFUSED)
    expect(wrapChainError(nodeError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:9'), 'reading')).toMatchObject({
      name: 'RpcUnreachableError', message: 'reading: RPC endpoint unreachable (connect ECONNREFUSED 127.0.0.1:9) (is the chain running?)'
    })
    expect(wrapChainError(nodeError('ECONNRESET', 'socket hang up'), 'reading').message).not.toContain('is the chain running')
  })

  it('does not take an answer that only mentions a network failure in its text for one', () => {
    const answer = makeError('execution reverted: "ECONNREFUSED fetch failed socket hang up"', 'UNKNOWN_ERROR')
    expect(isUnreachable(answer)).toBe(false)
    expect(isUnreachable(new Error('connect ECONNREFUSED 127.0.0.1:9'))).toBe(false)
    expect(wrapChainError(answer, 'reading')).toMatchObject({ name: 'ChainRequestError' })
  })

  it('reads a taken nonce from ethers\' code, and from the node\'s JSON-RPC error only when ethers set no code of its own', () => {
    // anvil's answers to a mined nonce and to one a pending transaction holds, as ethers reports them
    expect(isNonceTaken(makeError('nonce has already been used', 'NONCE_EXPIRED', { info: { error: { code: -32003, message: 'nonce too low' } } }))).toBe(true)
    expect(isNonceTaken(makeError('replacement fee too low', 'REPLACEMENT_UNDERPRICED', { info: { error: { code: -32003, message: 'replacement transaction underpriced' } } }))).toBe(true)
    // an answer ethers did not recognise: the node's own error object decides
    expect(isNonceTaken(makeError('could not coalesce error', 'UNKNOWN_ERROR', { error: { code: -32000, message: 'NONCE_TOO_LOW' } }))).toBe(true)
    expect(isNonceTaken({ code: -32000, message: 'nonce too low: next nonce 7, tx nonce 5' })).toBe(true)
    expect(isNonceTaken(makeError('could not coalesce error', 'UNKNOWN_ERROR', { error: { code: -32000, message: 'already known' } }))).toBe(false)
    // ethers gave a code of its own: the text is not read
    expect(isNonceTaken(makeError('execution reverted: "nonce too low"', 'CALL_EXCEPTION'))).toBe(false)
    expect(isNonceTaken(makeError('insufficient funds', 'INSUFFICIENT_FUNDS', { transaction: {} }))).toBe(false)
    expect(isNonceTaken(new Error('nonce too low'))).toBe(false)
  })
})
