import { ChainRequestError } from '../../errors.js'
import type { ChainContext } from '../../client/context.js'
import type { TxOptions, TxResult } from '../../client/tx-sender.js'

/** What `requestExit` did: its transaction, and from when (unix seconds) the stake can be withdrawn. */
export interface ExitRequest {
  tx: TxResult
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
  const event = tx.events.find(e => e.name === 'ExitRequested')
  if (event === undefined) throw new ChainRequestError(`NodeRegistry.requestExit (tx ${tx.hash}) emitted no ExitRequested event`)
  return { tx, withdrawableAt: Number(event.args.exitAt) }
}
