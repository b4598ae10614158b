import { DEFAULT_MAX_RUN_TIMEOUT_MS, DEFAULT_MIN_RUN_TIMEOUT_MS, RUN_TIMEOUT_FACTOR } from './constants.js'
import type { JobSpec } from '../protocol/index.js'

/**
 * The wall-clock limit of one MicroJob run: {@link RUN_TIMEOUT_FACTOR} times the job's own estimate, at least
 * {@link DEFAULT_MIN_RUN_TIMEOUT_MS}, at most {@link DEFAULT_MAX_RUN_TIMEOUT_MS}. A module that loops forever then
 * costs each peer one bounded attempt, not the executor's whole default limit per MicroJob.
 */
export function runTimeoutMs (spec: Pick<JobSpec, 'estimate'>): number {
  const estimated = spec.estimate.secondsPerMicroJob * 1000 * RUN_TIMEOUT_FACTOR
  if (!Number.isFinite(estimated)) return DEFAULT_MAX_RUN_TIMEOUT_MS
  return Math.round(Math.min(DEFAULT_MAX_RUN_TIMEOUT_MS, Math.max(DEFAULT_MIN_RUN_TIMEOUT_MS, estimated)))
}

/**
 * Poison isolation in job choice: jobs this peer saw fail come after every other candidate (most recent failure
 * last), so a failing job never holds a peer back from a healthy one.
 */
export function healthyFirst<C extends { id: string }> (candidates: C[], failedAt: ReadonlyMap<string, number>): C[][] {
  const healthy = candidates.filter(c => !failedAt.has(c.id))
  const failing = candidates.filter(c => failedAt.has(c.id))
    .sort((a, b) => (failedAt.get(a.id) ?? 0) - (failedAt.get(b.id) ?? 0))
  return [healthy, ...failing.map(c => [c])].filter(group => group.length > 0)
}
