import { delay } from '@jobmesh/contracts'

/**
 * Runs `read` every `ms` until `signal` aborts, the first time `ms` from now (the caller read once before it
 * started); a failure goes to `onError` and the next run comes as planned. The refresh loop of the peer's job gates.
 */
export async function every (ms: number, signal: AbortSignal, read: (signal: AbortSignal) => Promise<unknown>,
  onError: (err: Error) => void): Promise<void> {
  while (!signal.aborted) {
    await delay(ms, signal).catch(() => {})
    if (signal.aborted) return
    await read(signal).catch((err: Error) => { if (!signal.aborted) onError(err) })
  }
}
