import type { ChainContext } from '../../client/context.js'
import type { TxOptions, TxResult } from '../../client/tx-sender.js'

/** `NodeRegistry.resume`: puts the signer's paused node back into selection. @throws ChainRevertError (`NotPaused`, `NodeIsExiting`) and the other chain errors */
export async function resume (client: Pick<ChainContext, 'registryTx'>, options?: TxOptions): Promise<TxResult> {
  return client.registryTx('NodeRegistry.resume', 'resume', [], options)
}
