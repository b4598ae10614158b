import { ChainRequestError } from '../../errors.js'
import type { ChainContext } from '../../client/context.js'
import type { TxOptions, TxResult } from '../../client/tx-sender.js'

/** What `withdraw` paid the signer (wei), and its transaction. */
export interface StakeWithdrawal {
  tx: TxResult
  amountWei: bigint
}

/**
 * `NodeRegistry.withdraw`: after the exit cooldown, pays the signer's whole stake back and unregisters its node.
 * @throws ChainRevertError (`ExitNotRequested`, `CooldownNotOver(exitAt)`, `NodeIsBusy`: a drawn verifier,
 * `StakeIsLocked(amount)`: the bond of results under verification, `NotRegistered`) and the other chain errors
 */
export async function withdrawStake (client: Pick<ChainContext, 'registryTx'>, options?: TxOptions): Promise<StakeWithdrawal> {
  const tx = await client.registryTx('NodeRegistry.withdraw', 'withdraw', [], options)
  const event = tx.events.find(e => e.name === 'StakeWithdrawn')
  if (event === undefined) throw new ChainRequestError(`NodeRegistry.withdraw (tx ${tx.hash}) emitted no StakeWithdrawn event`)
  return { tx, amountWei: BigInt(event.args.amount as bigint) }
}
