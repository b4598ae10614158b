import { logger } from '@libp2p/logger'
import { encodeJobSpec, MAX_REJECTIONS } from '../protocol/index.js'
import { rawBlockCid } from '../storage/index.js'
import { DEFAULT_JOB_STATUS_RECHECK_MS, ROUND_RECHECK_MS, UNKNOWN_JOB_GIVE_UP_MS, UNKNOWN_JOB_RECHECK_MAX_MS } from './constants.js'
import type { JobSpec } from '../protocol/index.js'
import { isSettledStatus, rerunAllowanceMs } from '@jobmesh/contracts'
import type { ChainClient, CommitTimes, EscrowJobState, JobStatusName } from '@jobmesh/contracts'

const log = logger('jobmesh:settlement')

export interface FundedJobsComponents {
  chain: Pick<ChainClient, 'job' | 'jobCreated' | 'commitTimes'>
  /** Default `Date.now`. */
  clock?: () => number
}

export interface FundedJobsInit {
  /** How often a job's status is read again (ms). Default {@link DEFAULT_JOB_STATUS_RECHECK_MS}. */
  recheckMs?: number
  /** Called when a read finds a job Open that was not known Open before (the processor looks at it at once). */
  onOpen?(jobId: string): void
  /** Called when a read finds a job's round on chain other than the read before (the processor follows it at once). */
  onRound?(jobId: string, round: number): void
}

/**
 * What a read found: the escrow's status, `forged` (the announced spec is not the one the job was created with, or the
 * job's run-time hint on chain is below the spec's estimate).
 */
/** `exhausted`: Open, but rejected {@link MAX_REJECTIONS} times: the escrow takes no more results, only a refund. */
export type FundedStatus = JobStatusName | 'forged' | 'unreadable' | 'exhausted'

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
  /**
   * Reads the job from the escrow now, its spec unchecked (one call); what `round` and `settled` answer follows it.
   * @throws the chain errors
   */
  read(jobId: string): Promise<EscrowJobState>
  /**
   * The job's round on chain (its `rejections`) at the last read, undefined before one. An announcement's round is
   * anybody's word (any peer can re-sign an announcement with a higher round, and processors that believed it left
   * the job's real round for a doc no finalizer reads); so a processor on a chain works on this round. A job not
   * settled is read again when asked once `recheckMs` has passed (a rejection moves the round on, and a processor
   * that finished the round before asks nothing else of it); `announced`, the round an announcement or the
   * processor holds: one higher than both the last read and any announced before has it read at once (at most once
   * per {@link ROUND_RECHECK_MS}). Rounds only grow (`rejections` on chain never falls): a read that answers a lower
   * one (a lagging RPC node) changes nothing. `onRound` tells of a round that moved.
   */
  round(jobId: string, announced?: number): number | undefined
  /**
   * The longest a run of one of the job's MicroJobs may take here, in ms: the time its commit window gives a verifier
   * for each sampled re-run ({@link rerunAllowanceMs}). Undefined before the job was read Open. A processor that ran
   * a MicroJob longer than this would leave the drawn verifiers a window they cannot meet, and they are slashed and
   * paused for it: a creator's hint of 0 seconds on chain with an honest spec estimate did exactly that.
   */
  runLimitMs(jobId: string): number | undefined
  /** Whether the last read found the job released or refunded (settled for good). */
  settled(jobId: string): boolean
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

  /**
   * jobId -> its round on chain as read (the highest), the status of the last read, when, and the highest round an
   * announcement named that a read then refuted (not read for again).
   */
  const rounds = new Map<string, { round: number, status: JobStatusName, at: number, asked: number }>()
  const readingRound = new Set<string>()
  /** What each job's commit window is made of, from its last read. */
  const windows = new Map<string, Pick<EscrowJobState, 'samples' | 'macroJobs' | 'secondsPerMicroJob'>>()
  let times: CommitTimes | undefined

  /** The job as the escrow stores it (one call), its round noted (`onRound` when it moved). */
  const readJob = async (jobId: string, asked = 0): Promise<EscrowJobState> => {
    const job = await components.chain.job(jobId, { signal: controller.signal })
    if (job.status !== 'None') windows.set(jobId, { samples: job.samples, macroJobs: job.macroJobs, secondsPerMicroJob: job.secondsPerMicroJob })
    const before = rounds.get(jobId)
    const round = Math.max(before?.round ?? 0, job.rejections)
    rounds.set(jobId, { round, status: job.status, at: clock(), asked: Math.max(before?.asked ?? 0, asked) })
    if (job.status !== 'None' && before?.round !== round) init.onRound?.(jobId, round)
    return job
  }

  /** The status first (one call); `JobCreated` (a log scan) once, only for a job the escrow holds open. */
  const read = async (jobId: string, specCid: string, spec: JobSpec): Promise<FundedStatus> => {
    const options = { signal: controller.signal }
    const { status, rejections } = await readJob(jobId)
    if (status !== 'Open') return status
    if (rejections >= MAX_REJECTIONS) {
      log('job %s was rejected %d times: the escrow takes no more results for it', jobId, rejections)
      return 'exhausted'
    }
    times ??= await components.chain.commitTimes(options)
    if ((windows.get(jobId)?.secondsPerMicroJob ?? 0) < Math.ceil(spec.estimate.secondsPerMicroJob)) {
      log('job %s has a run-time hint on chain below its spec\'s estimate', jobId)
      return 'forged'
    }
    let onChain = created.get(jobId)
    if (onChain === undefined) {
      onChain = (await components.chain.jobCreated(jobId, options))?.specCid
      if (onChain === undefined) return 'unreadable'
      created.set(jobId, onChain)
    }
    return specCid === onChain ? status : 'forged'
  }

  /** Keyed by job and spec: a forged announcement of a job id does not stand in the way of the real one. */
  const check = async (jobId: string, specCid: string, spec: JobSpec): Promise<FundedStatus> => {
    const key = `${jobId}/${specCid}`
    const status = await read(jobId, specCid, spec).catch((err: Error) => {
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
  const refresh = (jobId: string, specCid: string, spec: JobSpec): void => {
    const key = `${jobId}/${specCid}`
    if (reading.has(key) || controller.signal.aborted) return
    reading.add(key)
    void check(jobId, specCid, spec).finally(() => { reading.delete(key) })
  }

  return {
    isOpen ({ jobId, spec }) {
      const id = jobId.toLowerCase()
      const specCid = specCidOf(spec)
      const k = known.get(`${id}/${specCid}`)
      if (k === undefined || due(k)) refresh(id, specCid, spec)
      return k?.status === 'Open'
    },
    async check ({ jobId, spec }) { return await check(jobId.toLowerCase(), specCidOf(spec), spec) },
    async read (jobId) { return await readJob(jobId.toLowerCase()) },
    round (jobId, announced) {
      const id = jobId.toLowerCase()
      const r = rounds.get(id)
      // a job the escrow does not know, or settled for good, has no round to move to: an announcement does not
      // have it read (an unfunded id re-announced with other rounds would cost a read each time)
      if (r === undefined || r.status === 'None' || isSettledStatus(r.status) || readingRound.has(id) || controller.signal.aborted) return r?.round
      const age = clock() - r.at
      const claimed = announced !== undefined && announced > Math.max(r.round, r.asked)
      if ((claimed && age >= ROUND_RECHECK_MS) || age >= recheckMs) {
        readingRound.add(id)
        void readJob(id, claimed ? announced : 0)
          .catch((err: Error) => { log('reading the round of %s failed: %e', id, err) })
          .finally(() => { readingRound.delete(id) })
      }
      return r?.round
    },
    runLimitMs (jobId) {
      const window = windows.get(jobId.toLowerCase())
      return window == null || times == null ? undefined : rerunAllowanceMs(window, times)
    },
    settled (jobId) {
      const status = rounds.get(jobId.toLowerCase())?.status
      return status !== undefined && isSettledStatus(status)
    },
    stop () { controller.abort() }
  }
}
