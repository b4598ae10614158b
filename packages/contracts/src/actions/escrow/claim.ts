import { resultLeafTuple } from './result-leaf.js'
import type { ChainContext } from '../../client/context.js'
import type { SampleLeaf } from '../../client/contract-types.js'
import type { TxOptions, TxResult } from '../../client/tx-sender.js'

/** `JobEscrow.claim`: claims result leaves of a released job (each pays its payee) with their positional proofs. @throws ChainRevertError and the other chain errors */
export async function claim (client: Pick<ChainContext, 'escrowTx'>, jobId: string, leaves: SampleLeaf[], proofs: string[][],
  options?: TxOptions): Promise<TxResult> {
  return client.escrowTx('JobEscrow.claim', 'claim', [jobId, leaves.map(resultLeafTuple), proofs], options)
}
