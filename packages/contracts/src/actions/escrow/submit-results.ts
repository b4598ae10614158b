import type { ChainContext } from '../../client/context.js'
import type { TxOptions, TxResult } from '../../client/tx-sender.js'

/**
 * `JobEscrow.submitResults`: the second half of a submission (a later block than `commitResults`), revealing
 * the committed result root and manifest CID.
 *
 * @throws ChainRevertError and the other chain errors
 */
export async function submitResults (client: Pick<ChainContext, 'escrowTx'>, jobId: string, input: { resultRoot: string, manifestCid: string },
  options?: TxOptions): Promise<TxResult> {
  return client.escrowTx('JobEscrow.submitResults', 'submitResults', [jobId, input.resultRoot, input.manifestCid], options)
}
