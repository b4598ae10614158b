import { logger } from '@libp2p/logger'
import { raceSignal } from 'race-signal'
import { DEFAULT_JOIN_TIMEOUT_MS, DEFAULT_JOIN_WAIT_MS, MAX_REMEMBERED_JOINS } from './constants.js'
import { JoinNotMinedError } from './errors.js'
import { isPermanent, withRetry } from './retry.js'
import { anySignal, timeoutSignal } from '@jobmesh/contracts'
import type { ChainClient } from '@jobmesh/contracts'
import type { AbortOptions } from '@libp2p/interface'

const log = logger('jobmesh:settlement')

export interface JobJoinsComponents {
  chain: Pick<ChainClient, 'joinJob' | 'hasJoined' | 'address'>
}

export interface JobJoinsInit {
  /** How long one job's join is tried before it is given up (ms). Default {@link DEFAULT_JOIN_TIMEOUT_MS}. */
  timeoutMs?: number
  /** How long {@link JobJoins.join} waits for a join to be mined (ms). Default {@link DEFAULT_JOIN_WAIT_MS}. */
  waitMs?: number
  /** Called when a job's join failed for good (this node does not work on it until a later join succeeds). */
  onFailed?(jobId: string, err: Error): void
}

/**
 * Joins the rounds of the jobs this node works on (`JobEscrow.joinJob`), once each: a submission may name only nodes
 * that joined its round as payees (docs/settlement.md, Defences 28), and a finalizer pays no other, so a node that
 * works on a job before its join is on chain may work for nothing. The processor waits for the join before its first
 * MicroJob of each round of the job. The {@link MAX_REMEMBERED_JOINS} newest joins are remembered; an older one asked
 * again is read on chain before anything is sent, and a join that failed is tried again when asked again.
 */
export interface JobJoins {
  /**
   * Resolves once this node joined round `round` of `jobId` on chain: at once when it did before, else when its join
   * (one per job and round, however often asked) is mined. The escrow records a join for the job's current round:
   * asked for a round the chain has left, the current one is joined. The signal ends this wait, not the join.
   * @throws the join's error when it was given up (a chain revert at once, an RPC away after `timeoutMs`);
   * {@link JoinNotMinedError} when it is still under way after `waitMs` (it goes on: ask again later)
   */
  join(jobId: string, round: number, options?: AbortOptions): Promise<void>
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

  const start = (id: string, key: string): Promise<void> => {
    const joining = joinOnce(id).catch((err: Error) => {
      // given up: forgotten, so the next ask tries again
      if (started.get(key) === joining) started.delete(key)
      if (!controller.signal.aborted) {
        log.error('joining job %s failed: %e', id, err)
        init.onFailed?.(id, err)
      }
      throw err
    })
    // nobody may be waiting when it fails: its error reaches the asker that waits, and the log
    joining.catch(() => {})
    started.set(key, joining)
    if (started.size > MAX_REMEMBERED_JOINS) started.delete(started.keys().next().value as string)
    return joining
  }

  return {
    async join (jobId, round, options = {}) {
      controller.signal.throwIfAborted()
      options.signal?.throwIfAborted()
      const id = jobId.toLowerCase()
      const key = `${id}/${round}`
      const waitMs = init.waitMs ?? DEFAULT_JOIN_WAIT_MS
      const timeout = timeoutSignal(waitMs)
      try {
        await raceSignal(started.get(key) ?? start(id, key), anySignal([options.signal, timeout]))
      } catch (err) {
        if (timeout.aborted && options.signal?.aborted !== true) {
          throw new JoinNotMinedError(`this node's join of round ${round} of job ${id} is not on chain after ${Math.round(waitMs / 1000)} s: no work on it yet (its finalizer would not pay it)`)
        }
        throw err
      }
    },
    stop () {
      controller.abort()
    }
  }
}
