import type { ChainContext } from '../../client/context.js'
import type { TxOptions, TxResult } from '../../client/tx-sender.js'

/** `JobEscrow.selectVerifiers`. Draws the job's verifiers (anyone may call). @throws ChainRevertError and the other chain errors */
export async function selectVerifiers (client: Pick<ChainContext, 'escrowTx'>, jobId: string, options?: TxOptions): Promise<TxResult> {
  return client.escrowTx('JobEscrow.selectVerifiers', 'selectVerifiers', [jobId], options)
}
