import { emitted } from '../../client/emitted.js'
import type { ChainContext } from '../../client/context.js'
import type { TxOptions, TxResult } from '../../client/tx-sender.js'

/** A claim's transaction and what it paid. */
export interface IncentiveClaim extends TxResult {
  /** Wei paid to the signer (the `Claimed` event). */
  amountWei: bigint
}

/**
 * `IncentivePool.claim`: records the signer's current share and pays it everything it earned.
 * @throws NoIncentivePoolError, ChainRevertError (`NothingToClaim`), ChainRequestError (no `Claimed` event) and the other chain errors
 */
export async function claimIncentive (client: Pick<ChainContext, 'incentiveTx'>, options?: TxOptions): Promise<IncentiveClaim> {
  const tx = await client.incentiveTx('IncentivePool.claim', 'claim', [], options)
  return { ...tx, amountWei: BigInt(emitted(tx, 'Claimed', 'IncentivePool.claim').amount as bigint) }
}
