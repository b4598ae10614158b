import { findEvents } from '../events/find-events.js'
import { labelId } from '../../client/labels.js'
import type { CallOptions } from '../../client/client-types.js'
import type { ChainContext } from '../../client/context.js'

/**
 * The model ids `node` is recorded on chain as holding now: its `ModelHeld` events since the deployment, less those it
 * dropped or was pruned of (`holds` read for each). Empty without a model registry. @throws the chain errors
 */
export async function modelRecords (client: Pick<ChainContext, 'provider' | 'deployment' | 'read' | 'blockNumber' | 'logBlockRange' | 'contracts'>,
  node: string, options?: CallOptions): Promise<string[]> {
  const models = client.contracts.modelRegistry
  if (client.deployment.modelRegistry == null || models == null) return []
  const events = await findEvents(client, { names: ['ModelHeld'], topic2: node }, options)
  const ids = [...new Set(events.map(e => String(e.args.modelId)))]
  const held = await Promise.all(ids.map(async id => await client.read(`ModelRegistry.holds(${node}, ${id})`, () => models.holds(node, labelId(id)), options)))
  return ids.filter((_, i) => held[i])
}
