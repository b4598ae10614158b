import { delay as pause } from '@jobmesh/contracts'
import { logger } from '@libp2p/logger'
import {
  DEFAULT_FINALIZE_MAX_RETRY_MS, DEFAULT_FINALIZE_RETRY_MS, DEFAULT_FINALIZE_TIMEOUT_MS, PROBE_ANSWER_MAX_RETRY_MS,
  PROBE_ANSWER_RETRY_MS, PROBE_ANSWER_RETRY_TOTAL_MS
} from './constants.js'

const log = logger('jobmesh:settlement')

/** Failures no retry can fix: the job's recorded results cannot be backed, or nobody can be paid. */
const PERMANENT = new Set(['OutputMismatchError', 'NoPayeesError', 'ValidationIndexMismatchError', 'WrongJobStatusError'])

export interface RetryOptions {
  signal?: AbortSignal
  /** First pause (ms), doubled after each failure up to `maxDelayMs`. */
  delayMs?: number
  maxDelayMs?: number
  /**
   * Bound of all attempts (ms): the last error is thrown once the next attempt would start after it. `Infinity`:
   * until it succeeds, fails for good or the signal aborts.
   */
  totalMs?: number
  what?: string
  /** Whether a failure is final (thrown at once); default {@link isPermanent}. Aborts always are. */
  permanent?(err: Error): boolean
  /** Called after each failure that is tried again, with its attempt number (1 first). */
  onFailure?(err: Error, attempt: number): void
}

/**
 * How a node sends a registry transaction of its own (a probe answer, a resume) again after a failed send (an RPC
 * hiccup, a nonce another sender of the wallet took): 1 s doubling to 4 s, for up to 2 min; a revert ends it (a
 * timeout does not: most come before anything is sent, and each send re-reads the state first).
 */
export function ownTxRetry (what: string, signal: AbortSignal): RetryOptions {
  return {
    signal,
    what,
    delayMs: PROBE_ANSWER_RETRY_MS,
    maxDelayMs: PROBE_ANSWER_MAX_RETRY_MS,
    totalMs: PROBE_ANSWER_RETRY_TOTAL_MS,
    permanent: (err) => err.name === 'ChainRevertError'
  }
}

/** True for a failure retrying cannot fix. */
export function isPermanent (err: Error): boolean {
  return PERMANENT.has(err.name)
}

/**
 * Runs `fn` until it succeeds, with exponential backoff and a bounded total time (the finalizer's loop: a spec,
 * output or RPC endpoint that is away now may be back in a minute; a model's fetch and on-chain record). Permanent
 * failures (by default `OutputMismatchError`, `NoPayeesError`, ...) and aborts are thrown at once.
 */
export async function withRetry<T> (fn: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const deadline = Date.now() + (options.totalMs ?? DEFAULT_FINALIZE_TIMEOUT_MS)
  const maxDelay = options.maxDelayMs ?? DEFAULT_FINALIZE_MAX_RETRY_MS
  let delay = options.delayMs ?? DEFAULT_FINALIZE_RETRY_MS
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn()
    } catch (err) {
      const e = err as Error
      if (options.signal?.aborted === true || e.name === 'AbortError' || (options.permanent ?? isPermanent)(e) || Date.now() + delay > deadline) throw err
      options.onFailure?.(e, attempt)
      log('%s failed (attempt %d), retrying in %d ms: %s: %s', options.what ?? 'step', attempt, delay, e.name, e.message)
      await pause(delay, options.signal)
      delay = Math.min(delay * 2, maxDelay)
    }
  }
}
