import { setMaxListeners } from 'node:events'
import { AbortError, ContentTimeoutError } from './errors.js'

/** A signal that fires on the caller's abort or after `timeoutMs`, and tells the two apart. */
export interface TimedSignal {
  readonly signal: AbortSignal
  /** The error to throw once `signal` fired: `AbortError` for the caller, `ContentTimeoutError` for the timeout. */
  reason(what: string): Error
  clear(): void
}

/**
 * A follower of `signal` for one helia call, with no listener limit: helia listens on the signal it is given per block
 * (a pin's walk, a read) and per peer that wants a block it stores (bitswap's notify: a job's inputs pinned by several
 * peers at once, a finalizer storing a job's outputs under the job's one signal), so Node warned of a listener leak
 * (MaxListenersExceededWarning). Each call's listeners go with its follower.
 */
export function heliaSignal (signal?: AbortSignal): AbortSignal | undefined {
  if (signal == null) return undefined
  const follower = AbortSignal.any([signal])
  setMaxListeners(Infinity, follower)
  return follower
}

/** A signal that fires on the caller's abort or after `timeoutMs`; handed to helia, so with no listener limit (heliaSignal). */
export function timedSignal (outer: AbortSignal | undefined, timeoutMs: number): TimedSignal {
  const controller = new AbortController()
  setMaxListeners(Infinity, controller.signal)
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
