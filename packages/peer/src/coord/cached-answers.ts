import { MAX_CACHED_NO_ANSWERS, MAX_CACHED_YES_ANSWERS } from './constants.js'

/** A yes/no answer per key, read on demand and cached. */
export interface CachedAnswers {
  /** The answer: cached, or read now (concurrent asks of a key share one read). */
  ask(key: string): Promise<boolean>
  /** Whether asking now would read: no answer is cached (or a no has expired) and no read is under way. */
  due(key: string): boolean
  /** Whether a yes of `key` was cached, fresh or expired (a read of it is a check again, not a newcomer's). */
  saidYes(key: string): boolean
  /** Forgets a cached no of `key`, so that the next ask reads again. */
  forgetNo(key: string): void
}

/**
 * Answers of `read`, cached: a yes for `positiveTtlMs` (the life of the process when omitted: a job known stays
 * known, a node registered need not stay so), a no for `negativeTtlMs` (so a node that registers, or a job created,
 * later gets in), timed by `clock` (default `Date.now`). Bounded: past {@link MAX_CACHED_YES_ANSWERS} yeses or
 * {@link MAX_CACHED_NO_ANSWERS} noes the answer cached longest ago goes, one per answer cached (until 2026-12-04 the
 * whole cache was cleared: a flood of unknown keys, which costs a sender nothing, made every peer's recent no a read
 * again).
 */
export function cachedAnswers (read: (key: string) => Promise<boolean>, negativeTtlMs: number, positiveTtlMs = Infinity,
  clock: () => number = Date.now): CachedAnswers {
  const yes = new Map<string, number>()
  const no = new Map<string, number>()
  const pending = new Map<string, Promise<boolean>>()
  const fresh = (answers: Map<string, number>, key: string, ttlMs: number): boolean => {
    const at = answers.get(key)
    return at != null && clock() - at < ttlMs
  }
  const accepted = (key: string): boolean => fresh(yes, key, positiveTtlMs)
  const refused = (key: string): boolean => fresh(no, key, negativeTtlMs)
  return {
    async ask (key) {
      if (accepted(key)) return true
      if (refused(key)) return false
      let lookup = pending.get(key)
      if (lookup == null) {
        lookup = read(key).then(ok => {
          if (ok) remember(yes, key, MAX_CACHED_YES_ANSWERS, clock())
          else remember(no, key, MAX_CACHED_NO_ANSWERS, clock())
          return ok
        }, (err: unknown) => {
          // an expired yes stands while the answer cannot be read (an RPC outage must not shut the known nodes out)
          if (!yes.has(key)) throw err
          remember(yes, key, MAX_CACHED_YES_ANSWERS, clock())
          return true
        }).finally(() => pending.delete(key))
        pending.set(key, lookup)
      }
      return await lookup
    },
    due: key => !accepted(key) && !refused(key) && !pending.has(key),
    saidYes: key => yes.has(key),
    forgetNo: key => { no.delete(key) }
  }
}

/** Caches an answer of `key` now, as the newest; past `max` answers the oldest goes. */
function remember (answers: Map<string, number>, key: string, max: number, now: number): void {
  answers.delete(key)
  answers.set(key, now)
  if (answers.size > max) answers.delete(answers.keys().next().value as string)
}
