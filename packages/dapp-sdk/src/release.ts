import { anySignal, delay, isExpired, timeoutSignal } from '@jobmesh/contracts'
import { logger } from '@libp2p/logger'
import {
  AbortError, DeadlinePassedError, JobNotFoundError, JobRefundedError, JobRejectedError,
  ReleaseTimeoutError
} from './errors.js'
import { DEFAULT_RPC_OUTAGE_MS } from './constants.js'
import { checkDuration } from './durations.js'
import type { ClientContext } from './context.js'
import type { EscrowJobState as EscrowJob } from '@jobmesh/contracts'

const log = logger('jobmesh:sdk')

/** How a released job was released. */
export interface Release {
  status: 'Released'
  /** Block of the `JobReleased` event (or the block the status was first seen in). */
  blockNumber: number
  resultRoot: string
}

export interface WaitForReleaseOptions {
  /** Between two status reads (ms); default the client's `pollIntervalMs`. */
  pollIntervalMs?: number
  /** Give up after this many ms with ReleaseTimeoutError; default the client's `releaseTimeoutMs`. */
  timeoutMs?: number
  signal?: AbortSignal
  /** Called with every status read. */
  onStatus?(job: EscrowJob): void
  /**
   * How long the status reads may fail in a row before the last read's error is thrown (ms); at least
   * {@link MIN_FAILED_READS} reads fail first. Default {@link DEFAULT_RPC_OUTAGE_MS} (2 min).
   */
  rpcOutageMs?: number
  /**
   * Called with every status read that failed and is tried again (the RPC endpoint slow, unreachable or answering
   * oddly): `failingForMs` since the first failure in a row; the wait gives up once that reaches `rpcOutageMs`.
   */
  onReadError?(err: Error, failingForMs: number, rpcOutageMs: number): void
}

/** Failed status reads in a row that are always tolerated, however short the outage allowance. */
const MIN_FAILED_READS = 5

/** Chain errors a status poll retries (the RPC endpoint was slow, unreachable or answered oddly), within the outage allowance. */
const TRANSIENT_CHAIN_ERRORS = new Set(['RpcUnreachableError', 'ChainTimeoutError', 'ChainRequestError'])

/**
 * Polls the escrow until the job is Released (see {@link JobClient.waitForRelease}).
 */
export async function waitForRelease (ctx: ClientContext, jobId: string, options: WaitForReleaseOptions = {}): Promise<Release> {
  const id = jobId.toLowerCase()
  const interval = checkDuration('pollIntervalMs', options.pollIntervalMs ?? ctx.settings.pollIntervalMs)
  const timeoutMs = checkDuration('timeoutMs', options.timeoutMs ?? ctx.settings.releaseTimeoutMs)
  const timeout = timeoutSignal(timeoutMs)
  const signal = anySignal([options.signal, ctx.stopped, timeout])
  const outageMs = checkDuration('rpcOutageMs', options.rpcOutageMs ?? DEFAULT_RPC_OUTAGE_MS, 0)
  let failures = 0
  let failingSince = 0
  let lastError: unknown
  while (true) {
    try {
      const job = await ctx.chain.client.job(id, { signal })
      failures = 0
      const expired = (job.status === 'Open' || job.status === 'Submitted') && isExpired(job, await ctx.chain.client.chainTime({ signal }))
      // a submission no verifier was drawn for by the deadline is never verified: said before its status line, which
      // would speak of verifiers to come
      if (expired && job.status === 'Submitted') {
        throw new DeadlinePassedError(`job ${id}: its results were submitted but no verifier was drawn by its deadline, so it ` +
          `cannot be released; refund it (jobmesh-dapp refund ${id}, or the SDK's refund)`)
      }
      options.onStatus?.(job)
      switch (job.status) {
        case 'Released': {
          const at = await ctx.chain.client.releasedBlock(id, { fromBlock: Math.max(ctx.fromBlock, job.submitBlock), signal })
            ?? await ctx.chain.client.blockNumber({ signal })
          return { status: 'Released', blockNumber: at, resultRoot: job.resultRoot }
        }
        case 'Refunded':
          throw new JobRefundedError(`job ${id} was refunded`)
        case 'None':
          throw new JobNotFoundError(`the escrow has no job ${id}`)
        case 'Open': {
          if (expired) {
            if (job.rejections > 0) {
              throw new JobRejectedError(`job ${id}: results were rejected ${job.rejections} time(s) and the deadline passed; refund it`)
            }
            throw new DeadlinePassedError(`job ${id} passed its deadline without results; refund it (jobmesh-dapp refund ${id}, or the SDK's refund)`)
          }
          break
        }
        case 'Submitted':
          break
      }
    } catch (err) {
      const name = (err as Error).name
      if (timeout.aborted) throw new ReleaseTimeoutError(`job ${id} was not released within ${timeoutMs} ms`, { cause: lastError ?? err })
      if (name === 'AbortError') throw err
      if (!TRANSIENT_CHAIN_ERRORS.has(name)) throw err
      if (failures++ === 0) failingSince = Date.now()
      lastError = err
      log('status read %d of %s failed: %s', failures, id, (err as Error).message)
      if (failures > MIN_FAILED_READS && Date.now() - failingSince >= outageMs) throw err
      options.onReadError?.(err as Error, Date.now() - failingSince, outageMs)
    }
    try {
      await delay(interval, signal)
    } catch (err) {
      if (timeout.aborted) throw new ReleaseTimeoutError(`job ${id} was not released within ${timeoutMs} ms`, { cause: lastError })
      throw new AbortError(`waiting for the release of ${id} aborted`, { cause: err })
    }
  }
}
