import { AbortError, TimeoutError } from './errors.js'

/** Options of {@link race}. */
export interface RaceOptions {
  signal?: AbortSignal
  /** Reject after this many ms (no timeout when undefined). */
  timeoutMs?: number
  /** The error a timeout rejects with; default a TimeoutError naming `what`. */
  onTimeout?: () => Error
  /** What is being waited for, for messages. */
  what: string
}

/**
 * Settles like `promise`, or rejects with AbortError when `signal` aborts, or with the timeout error when
 * `timeoutMs` passes first. The promise itself keeps running (callers abort their own work through the signal).
 */
export async function race<T> (promise: Promise<T>, options: RaceOptions): Promise<T> {
  const { signal, timeoutMs } = options
  if (signal?.aborted === true) {
    promise.catch(() => {})
    throw new AbortError(`${options.what} aborted`, { cause: signal.reason })
  }
  if (signal === undefined && timeoutMs === undefined) return promise
  return new Promise<T>((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined
    const cleanup = (): void => {
      if (timer !== undefined) clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
    }
    const onAbort = (): void => {
      cleanup()
      reject(new AbortError(`${options.what} aborted`, { cause: signal?.reason }))
    }
    if (timeoutMs !== undefined) {
      timer = setTimeout(() => {
        cleanup()
        reject(options.onTimeout?.() ?? new TimeoutError(`${options.what} timed out after ${timeoutMs} ms`))
      }, timeoutMs)
    }
    signal?.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (value) => { cleanup(); resolve(value) },
      (err: unknown) => { cleanup(); reject(err) }
    )
  })
}

/** A signal that aborts when any of `signals` does, or after `timeoutMs`. */
export function anySignal (signals: Array<AbortSignal | undefined>, timeoutMs?: number): AbortSignal {
  const list = signals.filter((s): s is AbortSignal => s !== undefined)
  if (timeoutMs !== undefined) list.push(AbortSignal.timeout(timeoutMs))
  return AbortSignal.any(list)
}
