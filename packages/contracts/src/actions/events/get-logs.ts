import { decodeLog, filterTopics } from '../../client/events.js'
import type { CallOptions } from '../../client/client-types.js'
import type { ChainContext } from '../../client/context.js'
import type { ChainEvent, EventFilter } from '../../client/events.js'

/** One `eth_getLogs` request over the escrow, the registry and (when deployed) the model registry for `[from, to]`: the decoded jobmesh events in chain order. */
export async function getLogs (client: Pick<ChainContext, 'provider' | 'deployment' | 'read'>, filter: EventFilter, from: number, to: number,
  options?: CallOptions): Promise<ChainEvent[]> {
  const logs = await client.read(`eth_getLogs ${from}-${to}`, () => client.provider.getLogs({
    address: [client.deployment.jobEscrow, client.deployment.nodeRegistry, ...(client.deployment.modelRegistry == null ? [] : [client.deployment.modelRegistry])],
    fromBlock: from,
    toBlock: to,
    topics: filterTopics(filter)
  }), options)
  return logs
    .map(l => decodeLog(l))
    .filter((e): e is ChainEvent => e != null)
    .sort((a, b) => a.blockNumber - b.blockNumber || a.logIndex - b.logIndex)
}
