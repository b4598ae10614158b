import { ANNOUNCEMENT_DOMAIN } from '../jobs/index.js'
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

/** The announcements of the index that `self` signed: what an `openJobs` answer re-publishes. */
export function ownAnnouncements (index: Iterable<[string, Uint8Array]> | undefined, verifier: RecordVerifier, self: string): Array<Uint8Array<ArrayBuffer>> {
  const own: Array<Uint8Array<ArrayBuffer>> = []
  for (const [, value] of index ?? []) {
    if (verifier.verify(value, ANNOUNCEMENT_DOMAIN)?.signer === self) own.push(value as Uint8Array<ArrayBuffer>)
  }
  return own
}
