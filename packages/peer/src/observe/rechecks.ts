export interface RechecksInit {
  /** The first wait (ms); each later one twice the one before, up to `maxMs`. */
  firstMs: number
  maxMs: number
  /** After this long since its first look (ms) a key is forgotten instead. */
  giveUpMs: number
  /** Default `Date.now`. */
  clock?: () => number
}

/** Later looks at keys, each sooner than the next (exponential back-off), for a while. */
export interface Rechecks {
  /**
   * Calls `look` once after the key's next wait (a pending look of the key is replaced). False, and nothing is called,
   * once the key was first looked at `giveUpMs` ago: it is forgotten.
   */
  later(key: string, look: () => void): boolean
  /** The key needs no more looks (its waits start again from `firstMs` next time). */
  forget(key: string): void
  /** Cancels every pending look. */
  stop(): void
}

export function rechecks (init: RechecksInit): Rechecks {
  const clock = init.clock ?? Date.now
  const keys = new Map<string, { since: number, waitMs: number, timer?: ReturnType<typeof setTimeout> }>()
  let stopped = false
  return {
    later (key, look) {
      if (stopped) return false
      const now = clock()
      const k = keys.get(key) ?? { since: now, waitMs: 0 }
      clearTimeout(k.timer)
      if (now - k.since >= init.giveUpMs) {
        keys.delete(key)
        return false
      }
      k.waitMs = k.waitMs === 0 ? init.firstMs : Math.min(k.waitMs * 2, init.maxMs)
      k.timer = setTimeout(look, k.waitMs)
      k.timer.unref?.()
      keys.set(key, k)
      return true
    },
    forget (key) {
      clearTimeout(keys.get(key)?.timer)
      keys.delete(key)
    },
    stop () {
      stopped = true
      for (const k of keys.values()) clearTimeout(k.timer)
      keys.clear()
    }
  }
}
