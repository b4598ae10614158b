import type { ChainContext } from '../../client/context.js'
import type { TxOptions, TxResult } from '../../client/tx-sender.js'

/** `JobEscrow.commitResults`. First half of a submission: commits `keccak256(abi.encode(jobId, round, resultRoot, manifestCid, sender))`. @throws ChainRevertError and the other chain errors */
export async function commitResults (client: Pick<ChainContext, 'escrowTx'>, jobId: string, commitment: string, options?: TxOptions): Promise<TxResult> {
  return client.escrowTx('JobEscrow.commitResults', 'commitResults', [jobId, commitment], options)
}
