import { emitted } from '../../client/emitted.js'
import type { ChainContext } from '../../client/context.js'
import type { TxOptions, TxResult } from '../../client/tx-sender.js'

/** What `requestExit` did: its transaction, and from when (unix seconds) the stake can be withdrawn. */
export interface ExitRequest extends TxResult {
  /** `ExitRequested.exitAt`: the end of the exit cooldown. */
  withdrawableAt: number
}

/**
 * `NodeRegistry.requestExit`: takes the signer's node out of every draw for good and starts the exit cooldown, after
 * which `withdrawStake` returns its stake. @throws ChainRevertError (`NodeIsExiting`, `NotRegistered`) and the other
 * chain errors
 */
export async function requestExit (client: Pick<ChainContext, 'registryTx'>, options?: TxOptions): Promise<ExitRequest> {
  const tx = await client.registryTx('NodeRegistry.requestExit', 'requestExit', [], options)
  return { ...tx, withdrawableAt: Number(emitted(tx, 'ExitRequested', 'NodeRegistry.requestExit').exitAt) }
}
