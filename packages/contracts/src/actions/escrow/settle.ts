import type { ChainContext } from '../../client/context.js'
import type { TxOptions, TxResult } from '../../client/tx-sender.js'

/** `JobEscrow.settle`. Settles the job after the reveal window: release or reject, slashes, verifier pay. @throws ChainRevertError and the other chain errors */
export async function settle (client: Pick<ChainContext, 'escrowTx'>, jobId: string, options?: TxOptions): Promise<TxResult> {
  return client.escrowTx('JobEscrow.settle', 'settle', [jobId], options)
}
