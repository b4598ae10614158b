import { setMaxListeners } from 'node:events'
import { AbortError, ContentTimeoutError } from './errors.js'

/** A signal that fires on the caller's abort or after `timeoutMs`, and tells the two apart. */
export interface TimedSignal {
  readonly signal: AbortSignal
  /** The error to throw once `signal` fired: `AbortError` for the caller, `ContentTimeoutError` for the timeout. */
  reason(what: string): Error
  /** Progress: moves the timeout `ms` later, and at least `timeoutMs` from now (a pin that keeps fetching earns its time). */
  extend(ms: number): void
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

/**
 * A signal that fires on the caller's abort or after `timeoutMs`; handed to helia, so with no listener limit
 * (heliaSignal). Work that reports its progress (`extend`) earns more time, but never more than `timeoutMs` after its
 * last progress: a stall is cut as soon as the time it earned is used up or `timeoutMs` passed without progress.
 */
export function timedSignal (outer: AbortSignal | undefined, timeoutMs: number): TimedSignal {
  const controller = new AbortController()
  setMaxListeners(Infinity, controller.signal)
  let timedOut = false
  let stalled = false
  let extended = 0
  const start = performance.now()
  let progressAt = start
  // an extension re-arms the timer only when it fires, not at every call
  const fire = (): void => {
    if (controller.signal.aborted) return
    const earned = start + timeoutMs + extended
    const idle = progressAt + timeoutMs
    const left = Math.min(earned, idle) - performance.now()
    if (left > 0) {
      timer = setTimeout(fire, left)
      return
    }
    timedOut = true
    stalled = extended > 0 && idle <= earned
    controller.abort()
  }
  let timer = setTimeout(fire, timeoutMs)
  const onAbort = (): void => { controller.abort() }
  if (outer?.aborted === true) controller.abort()
  else outer?.addEventListener('abort', onAbort, { once: true })
  return {
    signal: controller.signal,
    reason (what) {
      if (!timedOut) return new AbortError(`${what} aborted`)
      if (stalled) return new ContentTimeoutError(`${what} got nothing more for ${timeoutMs} ms`)
      return new ContentTimeoutError(extended === 0
        ? `${what} did not finish within ${timeoutMs} ms`
        : `${what} did not finish within ${timeoutMs} ms and the ${Math.round(extended)} ms more its progress earned`)
    },
    extend (ms) {
      extended += ms
      progressAt = performance.now()
    },
    clear () {
      clearTimeout(timer)
      outer?.removeEventListener('abort', onAbort)
    }
  }
}
