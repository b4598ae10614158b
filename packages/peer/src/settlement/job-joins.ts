import { logger } from '@libp2p/logger'
import { DEFAULT_JOIN_TIMEOUT_MS, MAX_REMEMBERED_JOINS } from './constants.js'
import { isPermanent, withRetry } from './retry.js'
import type { ChainClient } from '@jobmesh/contracts'

const log = logger('jobmesh:settlement')

export interface JobJoinsComponents {
  chain: Pick<ChainClient, 'joinJob' | 'hasJoined' | 'address'>
}

export interface JobJoinsInit {
  /** How long one job's join is tried before it is given up (ms). Default {@link DEFAULT_JOIN_TIMEOUT_MS}. */
  timeoutMs?: number
  /** Called when a job's join failed for good (this node's work on it is re-run by its finalizer, unpaid). */
  onFailed?(jobId: string, err: Error): void
}

/**
 * Joins the jobs this node works on (`JobEscrow.joinJob`), once each, in the background: a submission may name only
 * nodes that joined its job as payees (docs/settlement.md, Defences 28), and a finalizer pays no other, so a node
 * that works on a job without joining it works for nothing. The {@link MAX_REMEMBERED_JOINS} newest jobs are
 * remembered; an older one asked again is read on chain before anything is sent.
 */
export interface JobJoins {
  /** Joins `jobId` unless it was joined (or is being joined) already; never throws. */
  join(jobId: string): void
  /** Resolves once every join started so far has ended (joined, or given up). */
  settled(): Promise<void>
  stop(): void
}

export function jobJoins (components: JobJoinsComponents, init: JobJoinsInit = {}): JobJoins {
  const controller = new AbortController()
  const started = new Map<string, Promise<void>>()

  const joinOnce = async (jobId: string): Promise<void> => {
    const signal = controller.signal
    await withRetry(async () => {
      if (await components.chain.hasJoined(jobId, await components.chain.address(), { signal })) return
      await components.chain.joinJob(jobId, { signal })
      log('joined job %s', jobId)
    }, {
      signal,
      totalMs: init.timeoutMs ?? DEFAULT_JOIN_TIMEOUT_MS,
      what: `joining job ${jobId}`,
      // a revert (an unknown job) says the same every time; an RPC that is away may be back in a minute
      permanent: (err) => err.name === 'ChainRevertError' || isPermanent(err)
    })
  }

  return {
    join (jobId) {
      const id = jobId.toLowerCase()
      if (started.has(id) || controller.signal.aborted) return
      started.set(id, joinOnce(id).catch((err: Error) => {
        if (controller.signal.aborted) return
        log.error('joining job %s failed: %e', id, err)
        init.onFailed?.(id, err)
      }))
      if (started.size > MAX_REMEMBERED_JOINS) started.delete(started.keys().next().value as string)
    },
    async settled () {
      await Promise.all(started.values())
    },
    stop () {
      controller.abort()
    }
  }
}
