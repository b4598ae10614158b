import type { ChainContext } from '../../client/context.js'
import type { TxOptions, TxResult } from '../../client/tx-sender.js'

/** `JobEscrow.closeSeeds`. After the seed window: fixes the sample from the seeds revealed, slashing the verifiers that withheld one. @throws ChainRevertError and the other chain errors */
export async function closeSeeds (client: Pick<ChainContext, 'escrowTx'>, jobId: string, options?: TxOptions): Promise<TxResult> {
  return client.escrowTx('JobEscrow.closeSeeds', 'closeSeeds', [jobId], options)
}
