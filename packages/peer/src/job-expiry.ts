import { logger } from '@libp2p/logger'
import { retireJob } from './job-retirement.js'
import { DEFAULT_EXPIRY_CHECK_MS, every } from './settlement/index.js'
import type { JobRetirementComponents } from './job-retirement.js'
import type { Processor } from './processor/index.js'
import type { FundedJobs } from './settlement/index.js'

const log = logger('jobmesh:peer')

export interface JobExpiryComponents extends Pick<JobRetirementComponents, 'docs'> {
  /** Reads a job from the escrow; `settled` then knows a job read released or refunded (never read again here). */
  funded: Pick<FundedJobs, 'read' | 'settled'>
  processor: Pick<Processor, 'knownJobs' | 'retire'>
  /** The chain's time (unix ms), against which the escrow reads deadlines (`chainClock().now`). */
  clock(): number
}

export interface JobExpiryInit {
  /** How often the known jobs are looked at (ms). Default {@link DEFAULT_EXPIRY_CHECK_MS}. */
  intervalMs?: number
}

export interface JobExpiry {
  /** Looks at the known jobs now; resolves with the jobIds it retired. @throws the chain's errors */
  check(options?: { signal?: AbortSignal }): Promise<string[]>
  stop(): void
}

/**
 * A job whose deadline has passed while the escrow holds it Open (or never funded it) can never be paid: no result
 * is committed after the deadline, and all that can follow is its creator's refund, which may never come (a DApp that
 * walked away). Such a job is retired here as `expired` (the processor leaves it; its docs are closed, still served
 * from the datastore), instead of being followed until the node stops. A job Submitted before its deadline is left:
 * its verification goes on and it ends as `settled` (job-retirement.ts). One read released or refunded is the
 * settlement's to retire (after this peer's claims), and is not read again.
 */
export function retireExpiredJobs (components: JobExpiryComponents, init: JobExpiryInit = {}): JobExpiry {
  const controller = new AbortController()
  const check = async (options: { signal?: AbortSignal } = {}): Promise<string[]> => {
    const now = components.clock()
    const due = components.processor.knownJobs()
      .filter(j => j.deadline < now && j.state !== 'settled' && j.state !== 'expired' && !components.funded.settled(j.jobId))
    const retired: string[] = []
    for (const job of due) {
      options.signal?.throwIfAborted()
      const onChain = await components.funded.read(job.jobId)
      // the escrow's own deadline (seconds) for a funded job: an announcement's spec may not be the job's
      const open = onChain.status === 'Open' && onChain.deadline * 1000 < now
      if (onChain.status !== 'None' && !open) continue
      retireJob(components, job.jobId, 'expired')
      retired.push(job.jobId)
    }
    return retired
  }
  void every(init.intervalMs ?? DEFAULT_EXPIRY_CHECK_MS, controller.signal, async signal => await check({ signal }),
    err => { log('looking for expired jobs failed: %e', err) })
  return { check, stop: () => { controller.abort() } }
}
