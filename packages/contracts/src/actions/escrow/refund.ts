import type { ChainContext } from '../../client/context.js'
import type { TxOptions, TxResult } from '../../client/tx-sender.js'

/** `JobEscrow.refund`. Refunds the creator of a job that was not released by its deadline. @throws ChainRevertError and the other chain errors */
export async function refund (client: Pick<ChainContext, 'escrowTx'>, jobId: string, options?: TxOptions): Promise<TxResult> {
  return client.escrowTx('JobEscrow.refund', 'refund', [jobId], options)
}
