import { describe, expect, it } from 'vitest'
import { withRetry } from '../../src/settlement/retry.js'

function failing (name: string, times: number): { fn: () => Promise<string>, calls: () => number } {
  let calls = 0
  return {
    fn: async () => {
      calls++
      if (calls <= times) throw Object.assign(new Error(`attempt ${calls}`), { name })
      return 'ok'
    },
    calls: () => calls
  }
}

describe('finalizer retry', () => {
  it('retries a transient failure with growing pauses until it succeeds', async () => {
    const f = failing('SpecUnavailableError', 3)
    const started = Date.now()
    expect(await withRetry(f.fn, { delayMs: 20, maxDelayMs: 40, totalMs: 5_000 })).toBe('ok')
    expect(f.calls()).toBe(4)
    // 20 + 40 + 40 ms of pauses
    expect(Date.now() - started).toBeGreaterThanOrEqual(95)
  })

  it('throws a permanent failure at once', async () => {
    const f = failing('OutputMismatchError', 1)
    await expect(withRetry(f.fn, { delayMs: 10 })).rejects.toMatchObject({ name: 'OutputMismatchError' })
    expect(f.calls()).toBe(1)
  })

  it('gives up with the last error once the total time is spent', async () => {
    const f = failing('ContentTimeoutError', 1_000)
    await expect(withRetry(f.fn, { delayMs: 20, maxDelayMs: 20, totalMs: 100 })).rejects.toMatchObject({ name: 'ContentTimeoutError' })
    expect(f.calls()).toBeGreaterThanOrEqual(3)
    expect(f.calls()).toBeLessThanOrEqual(7)
  })

  it('stops on abort', async () => {
    const controller = new AbortController()
    const f = failing('ContentTimeoutError', 1_000)
    // aborted once the first attempt failed and the 10 s pause before the second began
    const first = async (): Promise<unknown> => await f.fn().finally(() => { setImmediate(() => { controller.abort() }) })
    const p = withRetry(first, { delayMs: 10_000, signal: controller.signal })
    await expect(p).rejects.toMatchObject({ name: 'AbortError' })
    expect(f.calls()).toBe(1)
  })
})
