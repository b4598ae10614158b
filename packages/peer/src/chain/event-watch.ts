import { logger } from '@libp2p/logger'
import { DEFAULT_WAIT_TIMEOUT_MS } from './constants.js'
import { decodeLog, filterTopics } from './events.js'
import { delay, pollUntil } from './wait.js'
import type { CallOptions, ChainClient } from './client-types.js'
import type { ChainContext } from './context.js'
import type { ChainEvent, EventFilter } from './events.js'

const log = logger('jobmesh:chain')

export type EventWatch = Pick<ChainClient, 'waitForBlock' | 'findEvents' | 'watchEvents'>

/** The chain's head and its jobmesh events: wait for a block, scan a range, follow new blocks. */
export function eventWatch (context: Pick<ChainContext, 'provider' | 'deployment' | 'read' | 'blockNumber' | 'pollMs' | 'logBlockRange'>): EventWatch {
  const { provider, read, blockNumber, pollMs, logBlockRange } = context
  const escrowAddress = context.deployment.jobEscrow
  const registryAddress = context.deployment.nodeRegistry

  const getLogs = async (filter: EventFilter, from: number, to: number, options?: CallOptions): Promise<ChainEvent[]> => {
    const logs = await read(`eth_getLogs ${from}-${to}`, () => provider.getLogs({
      address: [escrowAddress, registryAddress],
      fromBlock: from,
      toBlock: to,
      topics: filterTopics(filter)
    }), options)
    return logs
      .map(l => decodeLog(l))
      .filter((e): e is ChainEvent => e != null)
      .sort((a, b) => a.blockNumber - b.blockNumber || a.logIndex - b.logIndex)
  }

  return {
    async waitForBlock (n, options = {}) {
      return pollUntil(async () => {
        const head = await blockNumber(options)
        return head >= n ? head : undefined
      }, { pollMs: options.pollMs ?? pollMs, timeoutMs: options.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS, what: `block ${n}`, signal: options.signal })
    },
    async findEvents (filter, options) {
      const from = filter.fromBlock ?? context.deployment.blockNumber ?? 0
      const to = filter.toBlock ?? await blockNumber(options)
      const out: ChainEvent[] = []
      for (let a = from; a <= to; a += logBlockRange) {
        out.push(...await getLogs(filter, a, Math.min(to, a + logBlockRange - 1), options))
      }
      return out
    },
    async * watchEvents (options) {
      const { signal } = options
      const every = options.pollMs ?? pollMs
      const confirmations = options.confirmations ?? 0
      let cursor = options.fromBlock ?? await blockNumber({ signal })
      while (!signal.aborted) {
        let events: ChainEvent[] = []
        let to = cursor - 1
        try {
          const head = (await blockNumber({ signal })) - confirmations
          if (head >= cursor) {
            to = Math.min(head, cursor + logBlockRange - 1)
            events = await getLogs(options, cursor, to, { signal })
          }
        } catch (err) {
          if (signal.aborted) return
          log.error('event watch at block %d: %e', cursor, err)
        }
        for (const e of events) {
          if (signal.aborted) return
          yield e
        }
        if (to >= cursor) {
          cursor = to + 1
          continue
        }
        try {
          await delay(every, signal)
        } catch {
          return
        }
      }
    }
  }
}
