import { incentiveJson } from './chain-view.js'
import type { AnnouncedJob } from './announced-jobs.js'
import type { AccountView, IncentiveJson, VerificationView } from './chain-view.js'
import type { PeerEvent } from './event-log.js'
import type { JobProgressView, JobView } from './job-view.js'
import type { JobStory } from './story.js'
import type { PeerProfile } from '../jobs/index.js'
import type { HeldModel } from '../models/index.js'

// What the dashboard's state is made of (the NetworkObserver's `state()`), and how its parts are put into JSON.

export interface PeerCard {
  peerId: string
  connected: boolean
  /** First remote address when connected. */
  remoteAddr?: string
  profile?: PeerProfile
  /** From the registry. */
  stakeWei?: string
  score?: string
  eligible?: boolean
  paused?: boolean
}

export interface JobCard {
  jobId: string
  /** When this peer learnt the job (Unix ms; the jobs the index held at its start share the start's time). */
  learntAt: number
  round: number
  requirements: AnnouncedJob['requirements']
  progress: JobProgressView
  verification?: Omit<VerificationView, 'feeWei'> & { feeWei: string }
  story: Pick<JobStory, 'phase' | 'waitingFor' | 'lines' | 'chainUnread'> & { matching: string }
}

/** What the dashboard shows (JSON-safe: wei amounts are decimal strings). */
export interface NetworkState {
  at: number
  self: {
    peerId: string
    addresses: string[]
    gpuModel?: string
    vramGb: number
    account?: Omit<AccountView, 'balanceWei' | 'stakeWei' | 'score' | 'earnedWei' | 'incentive'> & {
      balanceWei: string, stakeWei: string, score: string, earnedWei: string
      incentive?: IncentiveJson
    }
    models?: HeldModel[]
  }
  peers: PeerCard[]
  jobs: JobCard[]
  events: PeerEvent[]
  headBlock?: number
  chainError?: string
  /** This peer has a chain (its account and the jobs' chain state come once it is read). */
  chainConfigured?: boolean
}

/**
 * The job cards' order: newest first, by when this peer learnt each job; the jobs the index held at its start (learnt
 * together) by their deadline, latest first (a deadline is set at submission: a day later by default).
 */
export function newestFirst (views: JobView[], learntAt: ReadonlyMap<string, number>): JobView[] {
  const at = (v: JobView): number => learntAt.get(v.job.jobId) ?? 0
  return views.sort((a, b) => (at(b) - at(a)) || (b.job.deadline - a.job.deadline) || a.job.jobId.localeCompare(b.job.jobId))
}

/** An account view with its wei amounts as decimal strings (the snapshot is JSON). */
export function accountJson (a: AccountView): NonNullable<NetworkState['self']['account']> {
  const { incentive, ...rest } = a
  return {
    ...rest,
    balanceWei: a.balanceWei.toString(),
    stakeWei: a.stakeWei.toString(),
    score: a.score.toString(),
    earnedWei: a.earnedWei.toString(),
    ...(incentive == null ? {} : { incentive: incentiveJson(incentive) })
  }
}
