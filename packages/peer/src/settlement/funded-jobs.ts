import { logger } from '@libp2p/logger'
import { encodeJobSpec } from '../protocol/index.js'
import { rawBlockCid } from '../storage/index.js'
import { DEFAULT_JOB_STATUS_RECHECK_MS, UNKNOWN_JOB_GIVE_UP_MS, UNKNOWN_JOB_RECHECK_MAX_MS } from './constants.js'
import type { JobSpec } from '../protocol/index.js'
import type { ChainClient, JobStatusName } from '@jobmesh/contracts'

const log = logger('jobmesh:settlement')

export interface FundedJobsComponents {
  chain: Pick<ChainClient, 'jobStatus' | 'jobCreated'>
  /** Default `Date.now`. */
  clock?: () => number
}

export interface FundedJobsInit {
  /** How often a job's status is read again (ms). Default {@link DEFAULT_JOB_STATUS_RECHECK_MS}. */
  recheckMs?: number
  /** Called when a read finds a job Open that was not known Open before (the processor looks at it at once). */
  onOpen?(jobId: string): void
}

/** What a read found: the escrow's status, `forged` (the announced spec is not the one the job was created with). */
export type FundedStatus = JobStatusName | 'forged' | 'unreadable'

/**
 * Whether the escrow holds a job open, funded, with the announced spec: only such a job can pay for work. An
 * announcement is only a signed record, so without this check anybody could have the peers compute for free (a job
 * never funded, or a funded job's id with other code), and a restarted peer went through every old job again.
 */
export interface FundedJobs {
  /**
   * True when the last read found the job Open, created (`JobCreated`) with the CID of the announced spec's bytes.
   * False until a first read (asked here, in the background), for a job the escrow does not hold open, and while
   * the chain cannot be read.
   */
  isOpen(job: { jobId: string, spec: JobSpec }): boolean
  /** Reads the job's status now (what `isOpen` then answers). */
  check(job: { jobId: string, spec: JobSpec }): Promise<FundedStatus>
  stop(): void
}

/** The last read of a job (`at`); for a job the escrow did not know, since when (`noneSince`) and how often. */
interface Known { status: FundedStatus, at: number, noneSince?: number, noneReads: number }

/** The CID the spec's canonical bytes get as one raw block (`addRaw`, how the SDK stores it), kept per spec object. */
const specCids = new WeakMap<JobSpec, string>()
function specCidOf (spec: JobSpec): string {
  let cid = specCids.get(spec)
  if (cid === undefined) {
    cid = rawBlockCid(encodeJobSpec(spec)).toString()
    specCids.set(spec, cid)
  }
  return cid
}

/** Settled for good: no read changes these. */
const FINAL = new Set<FundedStatus>(['Released', 'Refunded', 'forged'])

export function fundedJobs (components: FundedJobsComponents, init: FundedJobsInit = {}): FundedJobs {
  const recheckMs = init.recheckMs ?? DEFAULT_JOB_STATUS_RECHECK_MS
  const clock = components.clock ?? Date.now
  const controller = new AbortController()
  const known = new Map<string, Known>()
  const reading = new Set<string>()
  /** The spec CID of each job from its `JobCreated`, read once (it never changes). */
  const created = new Map<string, string>()

  /** The status first (one call); `JobCreated` (a log scan) once, only for a job the escrow holds open. */
  const read = async (jobId: string, specCid: string): Promise<FundedStatus> => {
    const options = { signal: controller.signal }
    const status = await components.chain.jobStatus(jobId, options)
    if (status !== 'Open') return status
    let onChain = created.get(jobId)
    if (onChain === undefined) {
      onChain = (await components.chain.jobCreated(jobId, options))?.specCid
      if (onChain === undefined) return 'unreadable'
      created.set(jobId, onChain)
    }
    return specCid === onChain ? status : 'forged'
  }

  /** Keyed by job and spec: a forged announcement of a job id does not stand in the way of the real one. */
  const check = async (jobId: string, specCid: string): Promise<FundedStatus> => {
    const key = `${jobId}/${specCid}`
    const status = await read(jobId, specCid).catch((err: Error) => {
      log('reading the escrow status of %s failed: %e', jobId, err)
      return 'unreadable' as const
    })
    if (status === 'forged') log('job %s is announced with a spec it was not created with', jobId)
    const before = known.get(key)
    const at = clock()
    known.set(key, status === 'None'
      ? { status, at, noneSince: before?.noneSince ?? at, noneReads: (before?.noneReads ?? 0) + 1 }
      : { status, at, noneReads: 0 })
    if (status === 'Open' && before?.status !== 'Open') init.onOpen?.(jobId)
    return status
  }

  /**
   * Whether a job is to be read again: a settled one never; one the escrow does not know less and less often (an
   * announcement of a job nobody funded costs every peer a read per back-off, not one per 5 s for good), then never.
   */
  const due = (k: Known): boolean => {
    if (FINAL.has(k.status)) return false
    const age = clock() - k.at
    if (k.noneSince === undefined) return age >= recheckMs
    if (clock() - k.noneSince >= UNKNOWN_JOB_GIVE_UP_MS) return false
    return age >= Math.min(recheckMs * 2 ** (k.noneReads - 1), UNKNOWN_JOB_RECHECK_MAX_MS)
  }

  /** Reads again in the background, once at a time per job. */
  const refresh = (jobId: string, specCid: string): void => {
    const key = `${jobId}/${specCid}`
    if (reading.has(key) || controller.signal.aborted) return
    reading.add(key)
    void check(jobId, specCid).finally(() => { reading.delete(key) })
  }

  return {
    isOpen ({ jobId, spec }) {
      const id = jobId.toLowerCase()
      const specCid = specCidOf(spec)
      const k = known.get(`${id}/${specCid}`)
      if (k === undefined || due(k)) refresh(id, specCid)
      return k?.status === 'Open'
    },
    async check ({ jobId, spec }) { return await check(jobId.toLowerCase(), specCidOf(spec)) },
    stop () { controller.abort() }
  }
}
