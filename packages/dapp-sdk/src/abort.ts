/** A signal that aborts when any of `signals` does, or after `timeoutMs`. */
export function anySignal (signals: Array<AbortSignal | undefined>, timeoutMs?: number): AbortSignal {
  const list = signals.filter((s): s is AbortSignal => s !== undefined)
  if (timeoutMs !== undefined) list.push(AbortSignal.timeout(timeoutMs))
  return AbortSignal.any(list)
}
