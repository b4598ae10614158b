import { AbortError, ChainTimeoutError } from '../errors.js'

/** Waits `ms` unless `signal` aborts first (then rejects with AbortError): the one abortable pause of every package (polls, retries, back-offs). */
export async function delay (ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted === true) throw new AbortError('aborted')
  const follower = follow(signal)
  await new Promise<void>((resolve, reject) => {
    const onAbort = (): void => { clearTimeout(timer); reject(new AbortError('aborted')) }
    const timer = setTimeout(() => { follower?.removeEventListener('abort', onAbort); resolve() }, ms)
    follower?.addEventListener('abort', onAbort, { once: true })
  })
}

/**
 * A signal that aborts with `signal`, for one wait to listen on: a client's calls share its long-lived signal, and
 * a listener of each on that signal itself made Node warn of a leak (MaxListenersExceededWarning) once more than 10
 * ran at once. `AbortSignal.any` follows its sources without listeners of theirs.
 */
function follow (signal: AbortSignal | undefined): AbortSignal | undefined {
  return signal === undefined ? undefined : AbortSignal.any([signal])
}

/**
 * Races `promise` against `timeoutMs` and `signal`: rejects with ChainTimeoutError / AbortError. The underlying
 * request is not cancelled (ethers requests cannot be), only abandoned.
 */
export async function withTimeout<T> (promise: Promise<T>, timeoutMs: number, what: string, signal?: AbortSignal): Promise<T> {
  if (signal?.aborted === true) {
    promise.catch(() => {})
    throw new AbortError(`${what} aborted`)
  }
  const follower = follow(signal)
  return new Promise<T>((resolve, reject) => {
    const done = (): void => {
      clearTimeout(timer)
      follower?.removeEventListener('abort', onAbort)
    }
    const onAbort = (): void => { done(); reject(new AbortError(`${what} aborted`)) }
    const timer = setTimeout(() => { done(); reject(new ChainTimeoutError(`${what} got no answer within ${timeoutMs} ms`)) }, timeoutMs)
    follower?.addEventListener('abort', onAbort, { once: true })
    promise.then((v) => { done(); resolve(v) }, (e: unknown) => { done(); reject(e) })
  })
}

/**
 * Polls `check` every `pollMs` until it returns a value other than `undefined`, for at most `timeoutMs`.
 *
 * @throws ChainTimeoutError, AbortError, or what `check` throws
 */
export async function pollUntil<T> (check: () => Promise<T | undefined>, options: { pollMs: number, timeoutMs: number, what: string, signal?: AbortSignal }): Promise<T> {
  const deadline = Date.now() + options.timeoutMs
  for (;;) {
    if (options.signal?.aborted === true) throw new AbortError(`${options.what} aborted`)
    const value = await check()
    if (value !== undefined) return value
    const left = deadline - Date.now()
    if (left <= 0) throw new ChainTimeoutError(`${options.what}: not reached within ${options.timeoutMs} ms`)
    await delay(Math.min(options.pollMs, left), options.signal)
  }
}
