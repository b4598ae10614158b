import { getAddress } from 'ethers'
import { findEvents } from '../events/find-events.js'
import type { BlockRange } from '../events/find-events.js'
import type { CallOptions } from '../../client/client-types.js'
import type { ChainContext } from '../../client/context.js'

/** A `ModelPrompted` event: `node` was asked to download `modelId`. */
export interface ModelPrompt {
  modelId: string
  node: string
  by: string
  blockNumber: number
}

/** The prompts naming `node` in a block range (default: from the deployment block to the head). @throws the chain errors */
export async function modelPrompts (client: Pick<ChainContext, 'provider' | 'deployment' | 'read' | 'blockNumber' | 'logBlockRange'>,
  node: string, range: BlockRange = {}, options?: CallOptions): Promise<ModelPrompt[]> {
  if (client.deployment.modelRegistry == null) return []
  const events = await findEvents(client, { names: ['ModelPrompted'], topic2: node, ...range }, options)
  return events.map(e => ({
    modelId: String(e.args.modelId), node: getAddress(String(e.args.node)), by: getAddress(String(e.args.by)), blockNumber: e.blockNumber
  }))
}
