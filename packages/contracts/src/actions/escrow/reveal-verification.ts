import { resultLeafTuple } from './result-leaf.js'
import type { ChainContext } from '../../client/context.js'
import type { RevealInput } from '../../client/contract-types.js'
import type { TxOptions, TxResult } from '../../client/tx-sender.js'

/** `JobEscrow.revealVerification`: a verifier reveals the vote it committed. @throws ChainRevertError and the other chain errors */
export async function revealVerification (client: Pick<ChainContext, 'escrowTx'>, jobId: string, r: RevealInput, options?: TxOptions): Promise<TxResult> {
  const reveal = [r.salt, r.processorBlame, r.executionDigest, r.expected, r.proven, resultLeafTuple(r.badLeaf)]
  return client.escrowTx('JobEscrow.revealVerification', 'revealVerification', [jobId, reveal], options)
}
