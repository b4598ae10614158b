import { getLogs } from './get-logs.js'
import type { CallOptions } from '../../client/client-types.js'
import type { ChainContext } from '../../client/context.js'
import type { ChainEvent, EventFilter } from '../../client/events.js'

/** A range of blocks to scan; `fromBlock` defaults to the deployment block, `toBlock` to the head. */
export interface BlockRange {
  fromBlock?: number
  toBlock?: number
}

/** Events in `[fromBlock, toBlock]`, in chain order, scanned in chunks of the client's log block range. @throws the chain errors */
export async function findEvents (client: Pick<ChainContext, 'provider' | 'deployment' | 'read' | 'blockNumber' | 'logBlockRange'>,
  filter: EventFilter & BlockRange, options?: CallOptions): Promise<ChainEvent[]> {
  const from = filter.fromBlock ?? client.deployment.blockNumber ?? 0
  const to = filter.toBlock ?? await client.blockNumber(options)
  const out: ChainEvent[] = []
  for (let a = from; a <= to; a += client.logBlockRange) {
    out.push(...await getLogs(client, filter, a, Math.min(to, a + client.logBlockRange - 1), options))
  }
  return out
}
