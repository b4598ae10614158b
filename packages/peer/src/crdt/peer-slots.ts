import { raceSignal } from 'race-signal'

/** At most `limit` holders per peer at once; the others wait (until their signal aborts). */
export class PeerSlots {
  private readonly limit: number
  private readonly held = new Map<string, { count: number, waiting: Array<() => void> }>()

  constructor (limit: number) {
    this.limit = limit
  }

  /** Waits for a slot of `peer`; returns its release. */
  async acquire (peer: string, signal: AbortSignal): Promise<() => void> {
    for (;;) {
      let slot = this.held.get(peer)
      if (slot == null) {
        slot = { count: 0, waiting: [] }
        this.held.set(peer, slot)
      }
      if (slot.count < this.limit) {
        slot.count++
        return once(() => { this.release(peer) })
      }
      const { waiting } = slot
      await raceSignal(new Promise<void>(resolve => { waiting.push(resolve) }), signal)
    }
  }

  /** Every waiter tries again (one that gave up meanwhile just does not). */
  private release (peer: string): void {
    const slot = this.held.get(peer)
    if (slot == null) return
    slot.count--
    if (slot.count === 0) this.held.delete(peer)
    for (const wake of slot.waiting.splice(0)) wake()
  }
}

function once (fn: () => void): () => void {
  let done = false
  return () => {
    if (done) return
    done = true
    fn()
  }
}
