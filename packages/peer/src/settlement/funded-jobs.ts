import { logger } from '@libp2p/logger'
import { DEFAULT_JOB_STATUS_RECHECK_MS } from './constants.js'
import type { ChainClient, JobStatusName } from '@jobmesh/contracts'

const log = logger('jobmesh:settlement')

export interface FundedJobsComponents {
  chain: Pick<ChainClient, 'jobStatus' | 'jobCreated'>
}

export interface FundedJobsInit {
  /** How often a job's status is read again (ms). Default {@link DEFAULT_JOB_STATUS_RECHECK_MS}. */
  recheckMs?: number
}

/**
 * Whether the escrow holds a job open, funded, with the announced spec: only such a job can pay for work. An
 * announcement is only a signed record, so without this check anybody could have the peers compute for free (a job
 * never funded, or a funded job's id with other code), and a restarted peer went through every old job again.
 */
export interface FundedJobs {
  /**
   * True when the last read found the job Open with this spec (`JobCreated`'s specCid). False until a first read
   * (asked here, in the background), for a job the escrow does not hold open, and while the chain cannot be read.
   */
  isOpen(job: { jobId: string, specCid: string }): boolean
  /** Reads the job's status now (what `isOpen` then answers): `forged` for a spec the escrow did not create it with. */
  check(job: { jobId: string, specCid: string }): Promise<JobStatusName | 'forged' | 'unreadable'>
  stop(): void
}

interface Known { status: JobStatusName | 'forged' | 'unreadable', at: number }

/** Settled for good: no read changes these. */
const FINAL = new Set<Known['status']>(['Released', 'Refunded', 'forged'])

export function fundedJobs (components: FundedJobsComponents, init: FundedJobsInit = {}): FundedJobs {
  const recheckMs = init.recheckMs ?? DEFAULT_JOB_STATUS_RECHECK_MS
  const controller = new AbortController()
  const known = new Map<string, Known>()
  const reading = new Set<string>()
  /** specCid of each job from its `JobCreated`, read once (null: the escrow never created it). */
  const created = new Map<string, string | null>()

  const read = async (jobId: string, specCid: string): Promise<Known['status']> => {
    const options = { signal: controller.signal }
    if (!created.has(jobId)) created.set(jobId, (await components.chain.jobCreated(jobId, options))?.specCid ?? null)
    const onChain = created.get(jobId)
    if (onChain == null) {
      created.delete(jobId) // not created yet, or not at all: asked again at the next recheck
      return 'None'
    }
    if (onChain !== specCid) return 'forged'
    return await components.chain.jobStatus(jobId, options)
  }

  const check = async (jobId: string, specCid: string): Promise<Known['status']> => {
    const status = await read(jobId, specCid).catch((err: Error) => {
      log('reading the escrow status of %s failed: %e', jobId, err)
      return 'unreadable' as const
    })
    if (status === 'forged') log('job %s is announced with spec %s, not the one the escrow created it with', jobId, specCid)
    known.set(`${jobId}/${specCid}`, { status, at: Date.now() })
    return status
  }

  /** Reads again in the background, once at a time per job and spec. */
  const refresh = (jobId: string, specCid: string): void => {
    const key = `${jobId}/${specCid}`
    if (reading.has(key) || controller.signal.aborted) return
    reading.add(key)
    void check(jobId, specCid).finally(() => { reading.delete(key) })
  }

  return {
    isOpen ({ jobId, specCid }) {
      const id = jobId.toLowerCase()
      const k = known.get(`${id}/${specCid}`)
      if (k === undefined || (!FINAL.has(k.status) && Date.now() - k.at >= recheckMs)) refresh(id, specCid)
      return k?.status === 'Open'
    },
    async check ({ jobId, specCid }) { return await check(jobId.toLowerCase(), specCid) },
    stop () { controller.abort() }
  }
}
