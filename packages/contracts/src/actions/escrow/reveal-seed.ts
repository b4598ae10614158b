import type { ChainContext } from '../../client/context.js'
import type { TxOptions, TxResult } from '../../client/tx-sender.js'

/** `JobEscrow.revealSeed`. A drawn verifier reveals its committed seed and commits the next one. @throws ChainRevertError and the other chain errors */
export async function revealSeed (client: Pick<ChainContext, 'escrowTx'>, jobId: string, seed: string, nextHash: string, options?: TxOptions): Promise<TxResult> {
  return client.escrowTx('JobEscrow.revealSeed', 'revealSeed', [jobId, seed, nextHash], options)
}
