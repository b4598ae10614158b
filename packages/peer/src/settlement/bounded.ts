import { setMaxListeners } from 'node:events'

/**
 * Runs `fn` on every item, at most `concurrency` at once, and answers the results in the items' order. The first
 * failure aborts the signal the others were given (each fetch or run in flight stops) and is thrown.
 */
export async function mapBounded<T, R> (items: readonly T[], concurrency: number,
  fn: (item: T, signal: AbortSignal) => Promise<R>, outer?: AbortSignal): Promise<R[]> {
  const failed = new AbortController()
  const signal = outer == null ? failed.signal : AbortSignal.any([outer, failed.signal])
  // every concurrent fetch and run listens on it
  setMaxListeners(Infinity, signal)
  const out: R[] = new Array(items.length)
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < items.length && !failed.signal.aborted) {
      const slot = next++
      try {
        out[slot] = await fn(items[slot], signal)
      } catch (err) {
        if (!failed.signal.aborted) failed.abort(err)
        return
      }
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker))
  if (failed.signal.aborted) throw failed.signal.reason
  outer?.throwIfAborted()
  return out
}
