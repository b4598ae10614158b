import { ANNOUNCEMENT_DOMAIN, announcedJobId } from '../jobs/index.js'
import { OPEN_JOBS_ANSWER_MS } from './constants.js'
import type { RecordVerifier } from '../coord/index.js'

export interface AnnouncementAnswersComponents {
  clock(): number
  /** Publishes this peer's own announcements on `/jobs`. */
  publishOwn(): void
}

/** Answers to `openJobs` requests, at most one per interval: a request within it is answered at its end, once. */
export interface AnnouncementAnswers {
  /** A peer asked for the announcements. */
  requested(): void
  stop(): void
}

export function announcementAnswers (components: AnnouncementAnswersComponents, init: { intervalMs?: number } = {}): AnnouncementAnswers {
  const intervalMs = init.intervalMs ?? OPEN_JOBS_ANSWER_MS
  let last = -Infinity
  let timer: ReturnType<typeof setTimeout> | undefined
  let stopped = false

  const requested = (): void => {
    if (stopped || timer != null) return
    const wait = last + intervalMs - components.clock()
    if (wait <= 0) {
      last = components.clock()
      components.publishOwn()
      return
    }
    timer = setTimeout(() => {
      timer = undefined
      requested()
    }, wait)
  }

  return {
    requested,
    stop () {
      stopped = true
      clearTimeout(timer)
      timer = undefined
    }
  }
}

/**
 * The announcements of the index that `self` signed, each under its own job's key: what an `openJobs` answer
 * re-publishes (an entry under another key is not learnt from the index, so it is not made learnable on `/jobs`).
 */
export function ownAnnouncements (index: Iterable<[string, Uint8Array]> | undefined, verifier: RecordVerifier, self: string): Array<Uint8Array<ArrayBuffer>> {
  const own: Array<Uint8Array<ArrayBuffer>> = []
  for (const [key, value] of index ?? []) {
    const verified = verifier.verify(value, ANNOUNCEMENT_DOMAIN)
    if (verified?.signer === self && announcedJobId(verified.payload) === key) own.push(value as Uint8Array<ArrayBuffer>)
  }
  return own
}
