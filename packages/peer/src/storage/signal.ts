import { AbortError, ContentTimeoutError } from './errors.js'

/** A signal that fires on the caller's abort or after `timeoutMs`, and tells the two apart. */
export interface TimedSignal {
  readonly signal: AbortSignal
  /** The error to throw once `signal` fired: `AbortError` for the caller, `ContentTimeoutError` for the timeout. */
  reason(what: string): Error
  clear(): void
}

export function timedSignal (outer: AbortSignal | undefined, timeoutMs: number): TimedSignal {
  const controller = new AbortController()
  let timedOut = false
  const timer = setTimeout(() => { timedOut = true; controller.abort() }, timeoutMs)
  const onAbort = (): void => { controller.abort() }
  if (outer?.aborted === true) controller.abort()
  else outer?.addEventListener('abort', onAbort, { once: true })
  return {
    signal: controller.signal,
    reason (what) {
      return timedOut
        ? new ContentTimeoutError(`${what} did not finish within ${timeoutMs} ms`)
        : new AbortError(`${what} aborted`)
    },
    clear () {
      clearTimeout(timer)
      outer?.removeEventListener('abort', onAbort)
    }
  }
}
