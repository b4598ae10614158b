import { logger } from '@libp2p/logger'
import { delay } from '../../client/wait.js'
import { getLogs } from './get-logs.js'
import type { WatchOptions } from '../../client/client-types.js'
import type { ChainContext } from '../../client/context.js'
import type { ChainEvent } from '../../client/events.js'

const log = logger('jobmesh:chain')

/**
 * Follows events by polling `eth_getLogs` over block ranges with a cursor (no `eth_newFilter`, which public RPCs
 * drop). Transient RPC errors are retried at the poll interval; ends when `options.signal` aborts.
 */
export async function * watchEvents (client: Pick<ChainContext, 'provider' | 'deployment' | 'read' | 'blockNumber' | 'pollMs' | 'logBlockRange'>,
  options: WatchOptions): AsyncGenerator<ChainEvent, void, undefined> {
  const { signal } = options
  const every = options.pollMs ?? client.pollMs
  const confirmations = options.confirmations ?? 0
  let cursor = options.fromBlock ?? await client.blockNumber({ signal })
  while (!signal.aborted) {
    let events: ChainEvent[] = []
    let to = cursor - 1
    let head = to
    try {
      head = (await client.blockNumber({ signal })) - confirmations
      if (head >= cursor) {
        const end = Math.min(head, cursor + client.logBlockRange - 1)
        events = await getLogs(client, options, cursor, end, { signal })
        // past the range only once its logs came: a failed request is asked again, its events not skipped
        to = end
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
      // a range short of the head: the next one at once; caught up: the next block is a poll away
      if (to < head) continue
    }
    try {
      await delay(every, signal)
    } catch {
      return
    }
  }
}
