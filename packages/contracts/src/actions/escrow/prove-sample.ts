import { resultLeafTuple } from './result-leaf.js'
import type { ChainContext } from '../../client/context.js'
import type { SampleLeaf } from '../../client/contract-types.js'
import type { TxOptions, TxResult } from '../../client/tx-sender.js'

/** `JobEscrow.proveSample`: the sampled result leaves with their positional proofs against the result root. @throws ChainRevertError and the other chain errors */
export async function proveSample (client: Pick<ChainContext, 'escrowTx'>, jobId: string, leaves: SampleLeaf[], proofs: string[][],
  options?: TxOptions): Promise<TxResult> {
  return client.escrowTx('JobEscrow.proveSample', 'proveSample', [jobId, leaves.map(resultLeafTuple), proofs], options)
}
