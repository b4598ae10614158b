/** What keeping a turn's leases needs: the job's MicroJob lease table (`renew` only). */
export interface HeldLeasesComponents {
  renew(key: string, term: number): unknown
  clock(): number
}

/**
 * The MicroJob leases this peer holds in a job, from the lock of their turn until each MicroJob ended here (its result
 * batched, its lease released, or the item skipped). A lease is renewed once it is `renewMs` old (since its lock or
 * its last renewal), whether its MicroJob runs or waits behind others of its turn: a turn of long MicroJobs (the first
 * turn of a job asks for 16 before any run time is known) used to renew only the running one, so the leases of those
 * waiting ran out and their items went to other peers, which ran them again. MicroJobs that end within `renewMs` of
 * their lock cost no renewal.
 */
export interface HeldLeases {
  /** Locked for this peer now, with lease term `term`. */
  hold(key: string, term: number): void
  /** Ended here: no more renewals. */
  drop(key: string): void
  /** Ends every renewal (the peer leaves the job's turns); a lock that arrives later is not kept. */
  stop(): void
}

export function heldLeases (components: HeldLeasesComponents, init: { renewMs: number }): HeldLeases {
  const held = new Map<string, { term: number, since: number }>()
  let timer: ReturnType<typeof setInterval> | undefined
  let stopped = false

  const tick = (): void => {
    const now = components.clock()
    for (const [key, lease] of held) {
      if (now - lease.since < init.renewMs) continue
      // undefined: no longer this peer's (lost, or run out): nothing more to keep
      if (components.renew(key, lease.term) == null) held.delete(key)
      else lease.since = now
    }
    if (held.size === 0) stopTimer()
  }
  const stopTimer = (): void => {
    if (timer != null) clearInterval(timer)
    timer = undefined
  }

  return {
    hold (key, term) {
      if (stopped) return
      held.set(key, { term, since: components.clock() })
      // ticks a quarter of the renew interval apart: a lease is renewed at most 1.25 renew intervals after the last
      timer ??= setInterval(tick, Math.max(1, Math.floor(init.renewMs / 4)))
    },
    drop (key) {
      held.delete(key)
      if (held.size === 0) stopTimer()
    },
    stop () {
      stopped = true
      held.clear()
      stopTimer()
    }
  }
}
