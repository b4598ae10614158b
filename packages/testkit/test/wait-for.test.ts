import { describe, expect, it } from 'vitest'
import { waitFor, WaitTimeoutError } from '../src/index.js'

describe('waitFor', () => {
  it('resolves with the first value the check returns, skipping undefined, null and false', async () => {
    const answers = [undefined, null, false, 0, 'never']
    let calls = 0
    const value = await waitFor(() => answers[calls++], { what: 'an answer', intervalMs: 1 })
    expect(value).toBe(0)
    expect(calls).toBe(4)
    expect(await waitFor(async () => 'async', { what: 'an async answer' })).toBe('async')
  })

  it('rejects with WaitTimeoutError naming what it waited for', async () => {
    const err = await waitFor(() => false, { what: 'a condition that never holds', timeoutMs: 50, intervalMs: 5 }).catch((e: Error) => e)
    expect(err).toBeInstanceOf(WaitTimeoutError)
    expect((err as Error).name).toBe('WaitTimeoutError')
    expect((err as Error).message).toMatch(/a condition that never holds/)
  })

  it('rejects with the signal\'s reason when it aborts, during a pause too', async () => {
    const controller = new AbortController()
    const waiting = waitFor(() => undefined, { what: 'nothing', timeoutMs: 60_000, intervalMs: 10_000, signal: controller.signal })
    controller.abort(new Error('stopped'))
    await expect(waiting).rejects.toThrow('stopped')
    await expect(waitFor(() => true, { what: 'x', signal: AbortSignal.abort(new Error('already')) })).rejects.toThrow('already')
  })
})
