/**
 * Resolves on SIGINT/SIGTERM, or (for devnet children) when the parent's pipe on stdin closes, or with `'aborted'`
 * when `signal` aborts (its handlers then gone: a later signal has its default effect again).
 */
export async function untilSignal (exitWithParent = false, signal?: AbortSignal): Promise<string> {
  return await new Promise(resolve => {
    const done = (reason: string): void => {
      process.off('SIGINT', done)
      process.off('SIGTERM', done)
      process.stdin.off('end', onEnd)
      signal?.removeEventListener('abort', onAbort)
      if (exitWithParent) {
        process.stdin.destroy()
      }
      resolve(reason)
    }
    const onEnd = (): void => { done('parent gone') }
    const onAbort = (): void => { done('aborted') }
    if (signal?.aborted === true) {
      resolve('aborted')
      return
    }
    signal?.addEventListener('abort', onAbort, { once: true })
    process.on('SIGINT', done)
    process.on('SIGTERM', done)
    if (exitWithParent) {
      process.stdin.on('end', onEnd)
      process.stdin.resume()
    }
  })
}

/** SIGINT/SIGTERM seen while a command starts (`watchInterrupt`). */
export interface InterruptWatch {
  /** The first signal received, once one was. */
  readonly received: NodeJS.Signals | undefined
  /** Aborted by the first signal. */
  readonly signal: AbortSignal
  /** Stops watching (a signal then does what it did before). */
  off(): void
}

/**
 * Watches SIGINT and SIGTERM while a command starts, so that a Ctrl-C stops what it started instead of killing the
 * process on the spot. The first signal is caught (and keeps other listeners, such as the one that kills the anvils
 * this process started, from re-raising it); a second one ends the process at once, as if unwatched.
 */
export function watchInterrupt (): InterruptWatch {
  const controller = new AbortController()
  let received: NodeJS.Signals | undefined
  const off = (): void => {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
  }
  function onSignal (signal: NodeJS.Signals): void {
    if (received === undefined) {
      received = signal
      controller.abort(signal)
      return
    }
    off()
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal)
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  // the CLI's loading handler goes only now: Node drops a signal that arrives while its last listener is removed
  endLoadingInterrupt()
  return { get received () { return received }, signal: controller.signal, off }
}

let loading: ((signal: NodeJS.Signals) => void) | undefined

/**
 * Handles Ctrl-C and SIGTERM while the CLI loads and parses its flags (nothing is started yet): without it a signal
 * in that first half second killed the process with no word. {@link endLoadingInterrupt} removes it as a command runs.
 */
export function interruptWhileLoading (handler: (signal: NodeJS.Signals) => void): void {
  loading = handler
  process.on('SIGINT', handler)
  process.on('SIGTERM', handler)
}

/**
 * Removes the loading handler: `watchInterrupt` (start, devnet) once its own listeners are in place (Node drops a
 * signal that is pending while a process has no listener for it: a Ctrl-C 0.9 s into a start was lost), the other
 * commands as their action begins (they stop by the signal).
 */
export function endLoadingInterrupt (): void {
  if (loading === undefined) return
  process.off('SIGINT', loading)
  process.off('SIGTERM', loading)
  loading = undefined
}

/** Resolves in the check phase of the event loop's next turn, so after one more poll phase has run. */
async function afterPoll (): Promise<void> {
  // the first immediate may run in this turn's check phase, before any poll phase has read a signal that came since
  for (let i = 0; i < 2; i++) await new Promise<void>(resolve => { setImmediate(resolve) })
}

/**
 * Removes the loading handler once the event loop has polled: a signal that came while the program evaluated (the
 * bundled CLI evaluates in one piece, the loop does not turn) is still pending there, and removing its last listener
 * first dropped it: the command then ran to its end as if no Ctrl-C had come. Pending, it reaches the handler here.
 */
export async function endLoadingInterruptAfterPending (): Promise<void> {
  await afterPoll()
  endLoadingInterrupt()
}

/** Calls `handler` on the next SIGINT or SIGTERM (once); returns its remover. */
export function onSignal (handler: (signal: NodeJS.Signals) => void): () => void {
  const off = (): void => {
    process.off('SIGINT', once)
    process.off('SIGTERM', once)
  }
  function once (signal: NodeJS.Signals): void {
    off()
    handler(signal)
  }
  process.on('SIGINT', once)
  process.on('SIGTERM', once)
  return off
}
