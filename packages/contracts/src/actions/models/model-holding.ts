import { labelId } from '../../client/labels.js'
import { NoModelRegistryError } from '../../errors.js'
import type { CallOptions } from '../../client/client-types.js'
import type { ChainContext } from '../../client/context.js'

/** A model's holders on chain, and one node's place among them. */
export interface ModelHolding {
  modelId: string
  /** How many nodes hold it. */
  holders: number
  /** Whether the node holds it. */
  held: boolean
  /** When the node was last prompted to download it (unix seconds; 0 = never). */
  promptedAt: number
}

/** `ModelRegistry.holderCount`, `holds` and `promptedAt` of `modelId` for `address` (default: the signer). @throws NoModelRegistryError and the chain errors */
export async function modelHolding (client: Pick<ChainContext, 'contracts' | 'read' | 'address'>, modelId: string, address?: string,
  options?: CallOptions): Promise<ModelHolding> {
  const models = client.contracts.modelRegistry
  if (models == null) throw new NoModelRegistryError('modelHolding: this deployment has no model registry')
  const a = address ?? await client.address()
  const key = labelId(modelId)
  const [holders, held, promptedAt] = await Promise.all([
    client.read(`ModelRegistry.holderCount(${modelId})`, () => models.holderCount(key), options),
    client.read(`ModelRegistry.holds(${a}, ${modelId})`, () => models.holds(a, key), options),
    client.read(`ModelRegistry.promptedAt(${modelId}, ${a})`, () => models.promptedAt(key, a), options)
  ])
  return { modelId, holders: Number(holders), held, promptedAt: Number(promptedAt) }
}

/** Up to `limit` (default 100) holders of `modelId` from `offset`. @throws NoModelRegistryError and the chain errors */
export async function modelHolders (client: Pick<ChainContext, 'contracts' | 'read'>, modelId: string,
  page: { offset?: number, limit?: number } = {}, options?: CallOptions): Promise<string[]> {
  const models = client.contracts.modelRegistry
  if (models == null) throw new NoModelRegistryError('modelHolders: this deployment has no model registry')
  const list = await client.read(`ModelRegistry.holdersOf(${modelId})`, () => models.holdersOf(labelId(modelId), page.offset ?? 0, page.limit ?? 100), options)
  return list.map(a => String(a))
}
