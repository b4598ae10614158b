import { getAddress } from 'ethers'
import { countsActive, withTimeout } from '@jobmesh/contracts'
import { DEFAULT_DESCRIBE_TIMEOUT_MS, SHARE_SHOWN_CHANGE } from './constants.js'
import { rankQueued } from './queue-position.js'
import type { QueuedVerification, QueuePosition } from './queue-position.js'
import type { ChainClient, EscrowJobState, IncentiveAccount, JobStatusName, QosScores } from '@jobmesh/contracts'

/** A wallet as the dashboard and `jobmesh status` show it (amounts in wei). */
export interface AccountView {
  address: string
  balanceWei: bigint
  registered: boolean
  stakeWei: bigint
  /** QoS score on the registry (window score). */
  score: bigint
  /** The registry's QoS scores B, R, P and the window (only for a registered node). */
  qos?: QosScores
  /**
   * Its incentive share and unclaimed incentive (a deployment with an incentive pool): for a registered node, and for
   * a withdrawn one while it has some unclaimed.
   */
  incentive?: IncentiveAccount
  eligible: boolean
  paused: boolean
  /** It asked to exit (`jobmesh exit`): out of every draw until its stake is withdrawn. */
  exiting: boolean
  /** An exiting node: when `jobmesh withdraw` can take its stake back (unix seconds, chain time). */
  withdrawableAt?: number
  /** The registry kicked it out (its QoS too low). */
  kickedOut: boolean
  busy: boolean
  /** Processor payments claimed plus verifier fees paid to this address, over the deployment's history. */
  earnedWei: bigint
  /** Jobs this address was paid for. */
  paidJobs: number
}

/** The chain side of a job: its status, round and verification phase (block numbers). */
export interface VerificationView {
  jobId: string
  status: JobStatusName
  headBlock: number
  /** Processing round = rejections so far. */
  round: number
  k: number
  assigned: number
  commits: number
  reveals: number
  /** Verifier seeds revealed, and whether they fixed the sample (all k, or the seed window was closed). */
  seeds: number
  sampleFixed: boolean
  /** Last block for the verifiers' seeds (once all k are drawn). */
  seedDeadline?: number
  submitter?: string
  submitBlock?: number
  commitDeadline?: number
  revealDeadline?: number
  /** Unix seconds. */
  deadline: number
  feeWei: bigint
  verifiers: Array<{ address: string, committed: boolean, revealed: boolean, seeded: boolean }>
  /**
   * Once the sample is fixed: the drawn verifiers that revealed their seed, the only ones that may commit (a verifier
   * that missed the seed window may not vote this round).
   */
  voters?: number
  /** Waiting in the escrow's verification queue (not enough idle eligible verifiers yet), and the queue's size. */
  queued?: boolean
  queueSize?: number
  /** Its place in the queue while `queued` (higher task value first, then earlier queued first). */
  queuePosition?: QueuePosition
  /**
   * A draw was tried (the draw blockhash is set) but the job is not queued: the full queue parked it (`VerificationParked`)
   * until its submitter draws again.
   */
  parked?: boolean
  /** Registered, active nodes (read while the job is open or its verifiers are missing): fewer than k + 1 can never verify it. */
  activeNodes?: number
  /**
   * Whether the submitter is one of `activeNodes` (read while its verifiers are missing): a submitter that paused or
   * left is not, and the k verifiers come from the others.
   */
  submitterActive?: boolean
  /**
   * Unix seconds of the head block, read while the job is open or its verifiers are missing: the clock its deadline is
   * compared with.
   */
  chainTime?: number
}

const ZERO = '0x0000000000000000000000000000000000000000'

/** Sums an address's `PaymentClaimed`, `VerifierPaid` and `DrawBountyPaid` events, scanning only blocks it has not seen yet. */
export interface EarningsCursor {
  read(options?: { signal?: AbortSignal }): Promise<{ earnedWei: bigint, paidJobs: number }>
}

export function earningsCursor (chain: ChainClient, address: string): EarningsCursor {
  const a = getAddress(address)
  let next: number | undefined
  let earnedWei = 0n
  const jobs = new Set<string>()
  let running: Promise<unknown> = Promise.resolve()
  return {
    async read (options = {}) {
      const step = running.then(async () => {
        const head = await chain.blockNumber(options)
        if (next != null && head < next) return
        const paid = await chain.findEvents({ names: ['PaymentClaimed', 'VerifierPaid', 'DrawBountyPaid'], topic2: a, fromBlock: next, toBlock: head }, options)
        for (const e of paid) {
          earnedWei += BigInt(e.args.amount as bigint)
          jobs.add(String(e.args.jobId))
        }
        next = head + 1
      })
      running = step.catch(() => {})
      await step
      return { earnedWei, paidJobs: jobs.size }
    }
  }
}

/** An incentive account as JSON carries it (status, dashboard): the unclaimed wei as a decimal string. */
export interface IncentiveJson {
  share: number
  shareNow: number
  /** The current share differs from the recorded one enough to be shown beside it ({@link SHARE_SHOWN_CHANGE}). */
  shareMoved: boolean
  earnedWei: string
}

export function incentiveJson (i: IncentiveAccount): IncentiveJson {
  return { share: i.share, shareNow: i.shareNow, shareMoved: Math.abs(i.shareNow - i.share) >= SHARE_SHOWN_CHANGE, earnedWei: i.earnedWei.toString() }
}

/** Reads a wallet's balance, registration, stake, QoS scores and earnings. */
export async function readAccount (chain: ChainClient, address: string, options: { signal?: AbortSignal, earnings?: EarningsCursor } = {}): Promise<AccountView> {
  const a = getAddress(address)
  const earnings = options.earnings ?? earningsCursor(chain, a)
  const [balanceWei, info, { earnedWei, paidJobs }, qos, account] = await Promise.all([
    withTimeout(chain.balance(a, options), { timeoutMs: DEFAULT_DESCRIBE_TIMEOUT_MS, what: 'eth_getBalance', signal: options.signal }),
    chain.nodeInfo(a, options),
    earnings.read(options),
    chain.qosScores(a, options),
    chain.contracts.incentivePool == null ? undefined : chain.incentiveAccount(a, options)
  ])
  // a node that withdrew keeps what it earned until then, claimable (`jobmesh claim`): shown while there is some
  const incentive = account != null && (info.registered || account.earnedWei > 0n) ? account : undefined
  return {
    address: a,
    balanceWei,
    registered: info.registered,
    stakeWei: info.stake,
    score: info.score,
    ...(info.registered ? { qos } : {}),
    ...(incentive == null ? {} : { incentive }),
    eligible: info.eligible,
    paused: info.paused,
    exiting: info.exiting,
    ...(info.exiting ? { withdrawableAt: info.exitAt } : {}),
    kickedOut: info.kickedOut,
    busy: info.busy,
    earnedWei,
    paidJobs
  }
}

/** Reads a job's escrow state, its verifiers and the head block. */
export async function readVerification (chain: ChainClient, jobId: string,
  options: { signal?: AbortSignal, queue?: VerificationQueueCursor } = {}): Promise<VerificationView> {
  const [job, headBlock] = await Promise.all([chain.job(jobId, options), chain.blockNumber(options)])
  const verifiers = job.status === 'None' ? [] : await chain.verifiers(jobId, options)
  const view = verificationFrom(job, headBlock, verifiers)
  // an open job with fewer than k + 1 active nodes is left alone by the peers (settlement/verifier-supply.ts)
  if (job.status === 'Open') [view.activeNodes, view.chainTime] = await Promise.all([chain.activeNodes(options), chain.chainTime(options)])
  if (job.status === 'Submitted' && job.assigned < job.k) {
    const escrow = chain.contracts.jobEscrow
    const [queued, size, active, submitter, time] = await Promise.all([
      withTimeout(escrow.isQueued(jobId) as Promise<boolean>, { timeoutMs: DEFAULT_DESCRIBE_TIMEOUT_MS, what: 'JobEscrow.isQueued', signal: options.signal }),
      withTimeout(escrow.queueSize() as Promise<bigint>, { timeoutMs: DEFAULT_DESCRIBE_TIMEOUT_MS, what: 'JobEscrow.queueSize', signal: options.signal }),
      chain.activeNodes(options),
      chain.nodeInfo(job.submitter, options),
      chain.chainTime(options)
    ])
    view.activeNodes = active
    view.submitterActive = countsActive(submitter)
    view.chainTime = time
    view.queued = queued
    view.queueSize = Number(size)
    view.parked = !queued && job.drawn
    if (queued) {
      const queue = options.queue ?? verificationQueueCursor(chain)
      view.queuePosition = rankQueued(await queue.read({ signal: options.signal }), jobId)
    }
  }
  return view
}

/**
 * The tasks waiting in the escrow's verification queue, read incrementally: each `read` scans the
 * `VerificationQueued` events of the blocks it has not seen yet (the last event of a job gives its order), asks
 * `isQueued` which known jobs still wait (parked tasks, refunds and successful draws drop out; a job queued again
 * emits a new event) and reads each one's queue group from `jobs(jobId)`.
 */
export interface VerificationQueueCursor {
  read(options?: { signal?: AbortSignal }): Promise<QueuedVerification[]>
}

export function verificationQueueCursor (chain: ChainClient): VerificationQueueCursor {
  let next: number | undefined
  const known = new Map<string, { value: bigint, blockNumber: number, logIndex: number, group?: string }>()
  let running: Promise<unknown> = Promise.resolve()
  const escrow = chain.contracts.jobEscrow
  return {
    async read (options = {}) {
      const step = running.then(async () => {
        const head = await chain.blockNumber(options)
        if (next == null || head >= next) {
          const events = await chain.findEvents({ names: ['VerificationQueued'], fromBlock: next, toBlock: head }, options)
          for (const e of events) {
            known.set(String(e.args.jobId).toLowerCase(), { value: BigInt(e.args.taskValue as bigint), blockNumber: e.blockNumber, logIndex: e.logIndex })
          }
          next = head + 1
        }
        await Promise.all([...known].map(async ([jobId, seen]) => {
          const queued = await withTimeout(escrow.isQueued(jobId) as Promise<boolean>, { timeoutMs: DEFAULT_DESCRIBE_TIMEOUT_MS, what: 'JobEscrow.isQueued', signal: options.signal })
          if (!queued) {
            known.delete(jobId)
            return
          }
          // the group is fixed while the job waits, except an identical job's chosen model: read it each time
          const job = await chain.job(jobId, options)
          const model = /^0x0*$/.test(job.chosenModel) ? job.gpuModel : job.chosenModel
          seen.group = `${job.minVramGb}:${model.toLowerCase()}`
        }))
        return [...known].map(([jobId, t]) => ({ jobId, value: t.value, blockNumber: t.blockNumber, logIndex: t.logIndex, group: t.group ?? '' }))
      })
      running = step.catch(() => {})
      return await step
    }
  }
}

/** The tasks waiting in the escrow's verification queue now (a one-off {@link verificationQueueCursor} read). */
export async function readVerificationQueue (chain: ChainClient, options: { signal?: AbortSignal } = {}): Promise<QueuedVerification[]> {
  return verificationQueueCursor(chain).read(options)
}

function verificationFrom (job: EscrowJobState, headBlock: number,
  verifiers: Array<{ node: string, committed: boolean, revealed: boolean, seeded: boolean }>): VerificationView {
  const submitted = job.submitter !== ZERO && job.submitBlock > 0
  const drawn = verifiers.filter(v => v.node !== ZERO)
  return {
    jobId: job.jobId,
    status: job.status,
    headBlock,
    round: job.rejections,
    k: job.k,
    assigned: job.assigned,
    commits: job.commits,
    reveals: job.reveals,
    seeds: job.seeds,
    sampleFixed: job.entropySet,
    seedDeadline: job.seedDeadline > 0 ? job.seedDeadline : undefined,
    submitter: submitted ? job.submitter : undefined,
    submitBlock: submitted ? job.submitBlock : undefined,
    commitDeadline: job.commitDeadline > 0 ? job.commitDeadline : undefined,
    revealDeadline: job.revealDeadline > 0 ? job.revealDeadline : undefined,
    deadline: job.deadline,
    feeWei: job.fee,
    verifiers: drawn.map(v => ({ address: v.node, committed: v.committed, revealed: v.revealed, seeded: v.seeded })),
    ...(job.entropySet && drawn.length > 0 ? { voters: drawn.filter(v => v.seeded).length } : {})
  }
}
