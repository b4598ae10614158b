import { emitted } from '../../client/emitted.js'
import type { ChainContext } from '../../client/context.js'
import type { TxOptions, TxResult } from '../../client/tx-sender.js'

/** What `withdraw` paid the signer (wei), with its transaction. */
export interface StakeWithdrawal extends TxResult {
  amountWei: bigint
}

/**
 * `NodeRegistry.withdraw`: after the exit cooldown, pays the signer's whole stake back and unregisters its node.
 * @throws ChainRevertError (`ExitNotRequested`, `CooldownNotOver(exitAt)`, `NodeIsBusy`: a drawn verifier,
 * `StakeIsLocked(amount)`: the bond of results under verification, `NotRegistered`) and the other chain errors
 */
export async function withdrawStake (client: Pick<ChainContext, 'registryTx'>, options?: TxOptions): Promise<StakeWithdrawal> {
  const tx = await client.registryTx('NodeRegistry.withdraw', 'withdraw', [], options)
  return { ...tx, amountWei: BigInt(emitted(tx, 'StakeWithdrawn', 'NodeRegistry.withdraw').amount as bigint) }
}
