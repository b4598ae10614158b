// Traffic counters of a coordination bench run: a row counts the job's traffic only (from the announcement, or from
// the mesh in a peer process), as it counts the job's CPU, not the connections' and subscriptions' before it.

/** `now - before`, field by field (the per-kind counts included); `before` is a `structuredClone` of the counters. */
export function countersSince (now, before) {
  if (typeof now === 'number') return now - (before ?? 0)
  return Object.fromEntries(Object.entries(now).map(([k, v]) => [k, countersSince(v, before?.[k])]))
}
