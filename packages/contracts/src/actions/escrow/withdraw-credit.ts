import type { ChainContext } from '../../client/context.js'
import type { TxOptions, TxResult } from '../../client/tx-sender.js'

/** `JobEscrow.withdrawCredit`. Withdraws the signer's credits (payouts that could not be pushed). @throws ChainRevertError and the other chain errors */
export async function withdrawCredit (client: Pick<ChainContext, 'escrowTx'>, options?: TxOptions): Promise<TxResult> {
  return client.escrowTx('JobEscrow.withdrawCredit', 'withdrawCredit', [], options)
}
