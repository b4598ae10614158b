import type { ChainContext } from '../../client/context.js'
import type { TxOptions, TxResult } from '../../client/tx-sender.js'

/** `JobEscrow.sweep`. After the claim window: moves what nobody claimed out of the job (docs/settlement.md). @throws ChainRevertError and the other chain errors */
export async function sweep (client: Pick<ChainContext, 'escrowTx'>, jobId: string, options?: TxOptions): Promise<TxResult> {
  return client.escrowTx('JobEscrow.sweep', 'sweep', [jobId], options)
}
