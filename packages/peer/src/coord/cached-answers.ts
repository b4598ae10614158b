/** A yes/no answer per key, read on demand and cached. */
export interface CachedAnswers {
  /** The answer: cached, or read now (concurrent asks of a key share one read). */
  ask(key: string): Promise<boolean>
  /** Whether asking now would read: no answer is cached (or a no has expired) and no read is under way. */
  due(key: string): boolean
  /** Forgets a cached no of `key`, so that the next ask reads again. */
  forgetNo(key: string): void
}

/**
 * Answers of `read`, cached: a yes for the life of the process, a no for `negativeTtlMs` (so a node that registers,
 * or a job created, later gets in). Bounded: each cache is cleared past its size.
 */
export function cachedAnswers (read: (key: string) => Promise<boolean>, negativeTtlMs: number): CachedAnswers {
  const yes = new Set<string>()
  const no = new Map<string, number>()
  const pending = new Map<string, Promise<boolean>>()
  const refused = (key: string): boolean => {
    const at = no.get(key)
    return at != null && Date.now() - at < negativeTtlMs
  }
  return {
    async ask (key) {
      if (yes.has(key)) return true
      if (refused(key)) return false
      let lookup = pending.get(key)
      if (lookup == null) {
        lookup = read(key).then(ok => {
          if (ok) {
            if (yes.size > 100_000) yes.clear()
            yes.add(key)
          } else {
            if (no.size > 10_000) no.clear()
            no.set(key, Date.now())
          }
          return ok
        }).finally(() => pending.delete(key))
        pending.set(key, lookup)
      }
      return await lookup
    },
    due: key => !yes.has(key) && !refused(key) && !pending.has(key),
    forgetNo: key => { no.delete(key) }
  }
}
