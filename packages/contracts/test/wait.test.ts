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
        ...Array.from({ length: 20 }, async () => await withTimeout(never, 60_000, 'a read', controller.signal)),
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
    await expect(withTimeout(new Promise<never>(() => {}), 20, 'a read', controller.signal)).rejects.toMatchObject({ name: 'ChainTimeoutError' })
    expect(await withTimeout(Promise.resolve(7), 1_000, 'a read', controller.signal)).toBe(7)
  })
})
