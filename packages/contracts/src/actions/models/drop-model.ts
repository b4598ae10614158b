import { labelId } from '../../client/labels.js'
import type { ChainContext } from '../../client/context.js'
import type { TxOptions, TxResult } from '../../client/tx-sender.js'

/** `ModelRegistry.drop`: the signer's node no longer holds `modelId`. @throws NoModelRegistryError, ChainRevertError (`NotHeld`) and the other chain errors */
export async function dropModel (client: Pick<ChainContext, 'modelsTx'>, modelId: string, options?: TxOptions): Promise<TxResult> {
  return client.modelsTx(`ModelRegistry.drop(${modelId})`, 'drop', [labelId(modelId)], options)
}
