import type { ChainContext } from '../../client/context.js'
import type { TxOptions, TxResult } from '../../client/tx-sender.js'

/**
 * `JobEscrow.joinJob`: this node works on the job, so the job's submissions may name it as a payee, locking the job's
 * bond of its stake while each is verified (a submission cannot name a node that did not join: docs/settlement.md,
 * Defences 28). Once per node and job; again is a no-op.
 *
 * @throws ChainRevertError (`UnknownJob`) and the other chain errors
 */
export async function joinJob (client: Pick<ChainContext, 'escrowTx'>, jobId: string, options?: TxOptions): Promise<TxResult> {
  return client.escrowTx('JobEscrow.joinJob', 'joinJob', [jobId], options)
}
