import { AbortError, ChainTimeoutError } from '../errors.js'

/**
 * A signal that aborts `ms` from now with a `TimeoutError` (as `AbortSignal.timeout`), held by its timer. Node (20,
 * 22) holds an `AbortSignal.timeout` only weakly: given to `AbortSignal.any` (ours, or a library's, such as a dial's)
 * it never fires once a garbage collection ran (nodejs/node#57736; `test/abort-gc.test.ts` shows it), and an
 * exchange with a stuck peer waited for ever. The timer is unref'd: it keeps no process running.
 */
export function timeoutSignal (ms: number): AbortSignal {
  const controller = new AbortController()
  setTimeout(() => { controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')) }, ms).unref()
  return controller.signal
}

/**
 * A signal that aborts when any of `signals` does, or `timeoutMs` from now ({@link timeoutSignal}): the one way the
 * packages combine a caller's signal with a timeout.
 */
export function anySignal (signals: Array<AbortSignal | undefined>, timeoutMs?: number): AbortSignal {
  const list = signals.filter((s): s is AbortSignal => s !== undefined)
  if (timeoutMs !== undefined) list.push(timeoutSignal(timeoutMs))
  return list.length === 1 ? list[0] : AbortSignal.any(list)
}

/** Waits `ms` unless `signal` aborts first (then rejects with AbortError): the one abortable pause of every package (polls, retries, back-offs). */
export async function delay (ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted === true) throw new AbortError('aborted')
  const follower = follow(signal)
  await new Promise<void>((resolve, reject) => {
    // names `signal`, so that it lives as long as its follower waits (a follower holds its source only weakly)
    const onAbort = (): void => { clearTimeout(timer); reject(new AbortError('aborted', { cause: signal?.reason })) }
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

/** Options of {@link withTimeout}. */
export interface WithTimeoutOptions {
  /** What is waited for, for messages. */
  what: string
  /** No timeout when undefined. */
  timeoutMs?: number
  signal?: AbortSignal
  /** The error a timeout rejects with; default a ChainTimeoutError naming `what` (most waits are chain requests). */
  onTimeout?: () => Error
}

/**
 * Settles like `promise`, or rejects with AbortError when `signal` aborts, or with the timeout error once `timeoutMs`
 * passed: the one race of a promise against a timeout and a signal of the packages without race-signal. The promise
 * is not cancelled (ethers requests cannot be), only abandoned.
 */
export async function withTimeout<T> (promise: Promise<T>, options: WithTimeoutOptions): Promise<T> {
  const { what, timeoutMs, signal } = options
  if (signal?.aborted === true) {
    promise.catch(() => {})
    throw new AbortError(`${what} aborted`, { cause: signal.reason })
  }
  if (signal === undefined && timeoutMs === undefined) return await promise
  const follower = follow(signal)
  return await new Promise<T>((resolve, reject) => {
    const done = (): void => {
      clearTimeout(timer)
      follower?.removeEventListener('abort', onAbort)
    }
    const onAbort = (): void => { done(); reject(new AbortError(`${what} aborted`, { cause: signal?.reason })) }
    const timer = timeoutMs === undefined
      ? undefined
      : setTimeout(() => { done(); reject(options.onTimeout?.() ?? new ChainTimeoutError(`${what} got no answer within ${timeoutMs} ms`)) }, timeoutMs)
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
