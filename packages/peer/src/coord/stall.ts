/**
 * Measures how long the local event loop was stalled, from the drift of a periodic timer: a timer of period
 * `intervalMs` that fires `gap` ms after its previous run was held up `gap - intervalMs` ms by this process.
 * While the loop is stalled no message can be read, so a room must not count that time as owner silence.
 */
export interface StallMeter {
  /** Call on every tick; returns the ms the loop was stalled since the previous tick (0 when on time). */
  observe(now: number): number
  /** Total stall observed so far (ms). */
  readonly total: number
}

/**
 * @param intervalMs - the period of the timer that calls `observe`
 * @param slackMs - drift below this is ordinary timer jitter, not a stall (default: half the interval)
 */
export function stallMeter (intervalMs: number, slackMs = Math.max(5, Math.floor(intervalMs / 2))): StallMeter {
  let last: number | undefined
  let total = 0
  return {
    observe (now) {
      const prev = last
      last = now
      if (prev == null) {
        return 0
      }
      const drift = now - prev - intervalMs
      if (drift <= slackMs) {
        return 0
      }
      total += drift
      return drift
    },
    get total () {
      return total
    }
  }
}
