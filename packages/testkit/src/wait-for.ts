import { delay } from '@jobmesh/contracts'
import { WaitTimeoutError } from './errors.js'

/** What a check returns: a value when the condition holds; `undefined`, `null` or `false` while it does not. */
export type Check<T> = () => T | undefined | null | false | Promise<T | undefined | null | false>

export interface WaitForOptions {
  /** What is awaited, for the error. */
  what: string
  /** Deadline; default 10 s. */
  timeoutMs?: number
  /** Pause between checks; default 20 ms. */
  intervalMs?: number
  /** Stops waiting with the signal's reason. */
  signal?: AbortSignal
}

const DEFAULT_TIMEOUT_MS = 10_000
const DEFAULT_INTERVAL_MS = 20

/**
 * Re-runs `check` until it returns a value (resolved with it), rejecting with {@link WaitTimeoutError} after
 * `timeoutMs` or with the signal's reason when `signal` aborts. The one polling wait of tests and benches.
 */
export async function waitFor<T> (check: Check<T>, options: WaitForOptions): Promise<T> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  const intervalMs = options.intervalMs ?? DEFAULT_INTERVAL_MS
  const deadline = Date.now() + timeoutMs
  for (;;) {
    options.signal?.throwIfAborted()
    const value = await check()
    if (value !== undefined && value !== null && value !== false) return value
    if (Date.now() > deadline) throw new WaitTimeoutError(options.what, timeoutMs)
    await delay(intervalMs, options.signal).catch((err: unknown) => {
      options.signal?.throwIfAborted()
      throw err
    })
  }
}

