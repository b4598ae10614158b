import type { LockedItem } from './room-types.js'
import type { AbortOptions } from '@libp2p/interface'

interface Waiting {
  want: number
  resolve(items: LockedItem[]): void
  reject(err: Error): void
}

/**
 * The one `next(want)` a room's member is waiting on: resolved with the items locked for it (or `[]`), rejected when
 * the room closes or the caller's signal aborts. Its abort listener is removed however the wait ends: the signal is
 * the processor's and outlives every turn (one listener left per turn was a leak).
 */
export class TurnWaiter {
  private current: Waiting | undefined

  /** MicroJobs wanted by the waiting caller, undefined when nobody waits. */
  get want (): number | undefined {
    return this.current?.want
  }

  /** Starts a wait; throws when one is already running. */
  wait (want: number, options: AbortOptions = {}): Promise<LockedItem[]> {
    if (this.current != null) {
      throw new Error('next() is already waiting')
    }
    options.signal?.throwIfAborted()
    let resolve!: (items: LockedItem[]) => void
    let reject!: (err: Error) => void
    const promise = new Promise<LockedItem[]>((res, rej) => { resolve = res; reject = rej })
    const signal = options.signal
    const onAbort = (): void => {
      if (this.current === waiting) this.current = undefined
      reject(signal?.reason)
    }
    const waiting: Waiting = {
      want: Math.max(1, want),
      resolve: (items) => { signal?.removeEventListener('abort', onAbort); resolve(items) },
      reject: (err) => { signal?.removeEventListener('abort', onAbort); reject(err) }
    }
    signal?.addEventListener('abort', onAbort, { once: true })
    this.current = waiting
    return promise
  }

  /** Ends the wait with `items`. */
  satisfy (items: LockedItem[]): void {
    const w = this.current
    if (w == null) return
    this.current = undefined
    w.resolve(items)
  }

  /** Ends the wait with `err`. */
  reject (err: Error): void {
    const w = this.current
    if (w == null) return
    this.current = undefined
    w.reject(err)
  }
}
