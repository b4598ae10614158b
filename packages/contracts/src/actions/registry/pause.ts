import type { ChainContext } from '../../client/context.js'
import type { TxOptions, TxResult } from '../../client/tx-sender.js'

/**
 * `NodeRegistry.pause`: takes the signer's node out of the verifier draw until `resume` (a node that stops draws no
 * task it could not do). @throws ChainRevertError (`AlreadyPaused`, `NotRegistered`) and the other chain errors
 */
export async function pause (client: Pick<ChainContext, 'registryTx'>, options?: TxOptions): Promise<TxResult> {
  return client.registryTx('NodeRegistry.pause', 'pause', [], options)
}
