import { describe, expect, it } from 'vitest'
import { delay, withTimeout } from '../src/client/wait.js'

describe('waits on a shared signal (client/wait.ts)', () => {
  it('many at once on one signal: no MaxListenersExceededWarning; an abort still ends each with AbortError', async () => {
    const warnings: Error[] = []
    const onWarning = (w: Error): void => { warnings.push(w) }
    process.on('warning', onWarning)
    try {
      const controller = new AbortController()
      const never = new Promise<never>(() => {})
      const waits = [
        ...Array.from({ length: 20 }, async () => await withTimeout(never, { timeoutMs: 60_000, what: 'a read', signal: controller.signal })),
        ...Array.from({ length: 20 }, async () => await delay(60_000, controller.signal))
      ].map(async p => await p.then(() => 'resolved', (err: Error) => err.name))
      controller.abort()
      expect(await Promise.all(waits)).toEqual(Array(40).fill('AbortError'))
      // a warning is emitted on a later tick
      await new Promise(resolve => setImmediate(resolve))
      expect(warnings.filter(w => w.name === 'MaxListenersExceededWarning')).toEqual([])
    } finally {
      process.off('warning', onWarning)
    }
  })

  it('a timeout ends the wait with ChainTimeoutError, and a resolved one with its value', async () => {
    const controller = new AbortController()
    await expect(withTimeout(new Promise<never>(() => {}), { timeoutMs: 20, what: 'a read', signal: controller.signal })).rejects.toMatchObject({ name: 'ChainTimeoutError' })
    expect(await withTimeout(Promise.resolve(7), { timeoutMs: 1_000, what: 'a read', signal: controller.signal })).toBe(7)
    // a wait that is not a chain request names its own timeout error; without a timeout only the signal ends it
    class PeerWaitError extends Error { override name = 'PeerWaitError' }
    await expect(withTimeout(new Promise<never>(() => {}), { timeoutMs: 20, what: 'a peer', onTimeout: () => new PeerWaitError('no peer') }))
      .rejects.toMatchObject({ name: 'PeerWaitError' })
    const forever = withTimeout(new Promise<never>(() => {}), { what: 'a peer', signal: controller.signal })
    controller.abort()
    await expect(forever).rejects.toMatchObject({ name: 'AbortError' })
  })
})
