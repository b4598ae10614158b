/** Unix seconds as `2026-11-28T12:00:00Z`. */
export function isoSeconds (seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/\.000Z$/, 'Z')
}

/** A span of seconds for people: `6 d 23 h`, `23 h 59 min`, `4 min 10 s`, `42 s`. */
export function timeLeft (seconds: number): string {
  const s = Math.max(0, Math.floor(seconds))
  const [d, h, m] = [Math.floor(s / 86_400), Math.floor(s / 3_600) % 24, Math.floor(s / 60) % 60]
  if (d > 0) return `${d} d ${h} h`
  if (h > 0) return `${h} h ${m} min`
  if (m > 0) return `${m} min ${s % 60} s`
  return `${s} s`
}
