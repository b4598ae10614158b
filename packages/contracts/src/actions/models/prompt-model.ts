import type { ChainContext } from '../../client/context.js'
import type { TxOptions, TxResult } from '../../client/tx-sender.js'

/**
 * `ModelRegistry.prompt`: asks `nodes` (active, not holding it, not prompted for it within the cooldown) to download
 * `modelId`; the signer holds it. @throws NoModelRegistryError, ChainRevertError (`NotHeld`, `NotPromptable`,
 * `PromptTooSoon`, `TooManyPrompts`) and the other chain errors
 */
export async function promptModel (client: Pick<ChainContext, 'modelsTx'>, modelId: string, nodes: readonly string[],
  options?: TxOptions): Promise<TxResult> {
  return client.modelsTx(`ModelRegistry.prompt(${modelId}, ${nodes.length} nodes)`, 'prompt', [modelId, [...nodes]], options)
}
