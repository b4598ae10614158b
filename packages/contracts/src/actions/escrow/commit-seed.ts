import type { ChainContext } from '../../client/context.js'
import type { TxOptions, TxResult } from '../../client/tx-sender.js'

/** `JobEscrow.commitSeed`. Commits this node's next verifier seed: `hash` = keccak256(abi.encode(seed)), `index` its own label. @throws ChainRevertError and the other chain errors */
export async function commitSeed (client: Pick<ChainContext, 'escrowTx'>, hash: string, index: number, options?: TxOptions): Promise<TxResult> {
  return client.escrowTx('JobEscrow.commitSeed', 'commitSeed', [hash, index], options)
}
