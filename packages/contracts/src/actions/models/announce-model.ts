import type { ChainContext } from '../../client/context.js'
import type { TxOptions, TxResult } from '../../client/tx-sender.js'

/**
 * `ModelRegistry.announce`: records on chain that the signer's node holds the model `modelId` (a job's
 * `requirements.modelId`, fetched and pinned). @throws NoModelRegistryError, ChainRevertError (`NotActive`,
 * `AlreadyHeld`, `TooManyModels`, `InvalidModel`) and the other chain errors
 */
export async function announceModel (client: Pick<ChainContext, 'modelsTx'>, modelId: string, options?: TxOptions): Promise<TxResult> {
  return client.modelsTx(`ModelRegistry.announce(${modelId})`, 'announce', [modelId], options)
}
