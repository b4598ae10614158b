/**
 * A table that keeps the `max` entries used last: a new key past `max` pushes out the entry used longest ago, so a
 * flood of new keys (fresh PeerIds cost nothing) pushes out quiet entries, not the ones in use.
 */
export interface LastUsed<V> {
  /** The entry of `key`, without making it the newest. */
  peek(key: string): V | undefined
  /** The entry of `key` (`create`d when there is none), now the newest. */
  touch(key: string, create: () => V): V
}

export function lastUsed<V> (max: number): LastUsed<V> {
  const entries = new Map<string, V>()
  return {
    peek: key => entries.get(key),
    touch (key, create) {
      let value = entries.get(key)
      if (value === undefined) {
        if (entries.size >= max) entries.delete(entries.keys().next().value as string)
        value = create()
      } else {
        // a Map iterates in insertion order: set again, the entry goes last
        entries.delete(key)
      }
      entries.set(key, value)
      return value
    }
  }
}
