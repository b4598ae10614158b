import { logger } from '@libp2p/logger'
import { retireJob } from './job-retirement.js'
import { DEFAULT_EXPIRY_CHECK_MS, every } from './settlement/index.js'
import type { JobRetirementComponents } from './job-retirement.js'
import type { Processor } from './processor/index.js'
import type { ChainClient, JobStatusName } from '@jobmesh/contracts'

const log = logger('jobmesh:peer')

export interface JobExpiryComponents extends Pick<JobRetirementComponents, 'docs'> {
  chain: Pick<ChainClient, 'job'>
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

/** The escrow takes no results for these after the deadline: only a refund can follow. */
const UNPAYABLE = new Set<JobStatusName>(['None', 'Open'])
/** Over on chain: the settlement retires these (`ended`, after this peer's claim), and no read changes them. */
const SETTLED = new Set<JobStatusName>(['Released', 'Refunded'])

/**
 * A job whose deadline has passed while the escrow holds it Open (or never funded it) can never be paid: no result
 * is committed after the deadline, and all that can follow is its creator's refund, which may never come (a DApp that
 * walked away). Such a job is retired here as `expired` (the processor leaves it; its docs are closed, still served
 * from the datastore), instead of being followed until the node stops. A job Submitted before its deadline is left:
 * its verification goes on and it ends as `settled` (job-retirement.ts).
 */
export function retireExpiredJobs (components: JobExpiryComponents, init: JobExpiryInit = {}): JobExpiry {
  const controller = new AbortController()
  /** Jobs read settled on chain: never read again (a restarted peer knows every old job of the index). */
  const settled = new Set<string>()
  const check = async (options: { signal?: AbortSignal } = {}): Promise<string[]> => {
    const now = components.clock()
    const due = components.processor.knownJobs()
      .filter(j => j.deadline < now && j.state !== 'settled' && j.state !== 'expired' && !settled.has(j.jobId))
    const retired: string[] = []
    for (const job of due) {
      const onChain = await components.chain.job(job.jobId, options)
      if (SETTLED.has(onChain.status)) {
        settled.add(job.jobId)
        // one this peer never worked on since it started (an old job of the index) is listed as what it is; its docs,
        // if any, are the settlement's to close after its claims
        if (job.state === 'open') components.processor.retire(job.jobId, 'settled')
        continue
      }
      // the deadline the escrow compares, in seconds; an unfunded job has none on chain, and the spec's has passed
      if (!UNPAYABLE.has(onChain.status) || (onChain.status === 'Open' && onChain.deadline * 1000 >= now)) continue
      retireJob(components, job.jobId, 'expired')
      retired.push(job.jobId)
    }
    return retired
  }
  void every(init.intervalMs ?? DEFAULT_EXPIRY_CHECK_MS, controller.signal, async signal => await check({ signal }),
    err => { log('looking for expired jobs failed: %e', err) })
  return { check, stop: () => { controller.abort() } }
}
