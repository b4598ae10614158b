import type { ChainContext } from '../../client/context.js'
import type { TxOptions, TxResult } from '../../client/tx-sender.js'

/** `JobEscrow.commitVerification`. A verifier commits its hidden vote. @throws ChainRevertError and the other chain errors */
export async function commitVerification (client: Pick<ChainContext, 'escrowTx'>, jobId: string, commitment: string, options?: TxOptions): Promise<TxResult> {
  return client.escrowTx('JobEscrow.commitVerification', 'commitVerification', [jobId, commitment], options)
}
