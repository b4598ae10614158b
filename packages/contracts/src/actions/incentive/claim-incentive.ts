import type { ChainContext } from '../../client/context.js'
import type { TxOptions, TxResult } from '../../client/tx-sender.js'

/** A claim's transaction and what it paid. */
export interface IncentiveClaim extends TxResult {
  /** Wei paid to the signer (the `Claimed` event). */
  amountWei: bigint
}

/**
 * `IncentivePool.claim`: records the signer's current share and pays it everything it earned.
 * @throws NoIncentivePoolError, ChainRevertError (`NothingToClaim`) and the other chain errors
 */
export async function claimIncentive (client: Pick<ChainContext, 'incentiveTx'>, options?: TxOptions): Promise<IncentiveClaim> {
  const tx = await client.incentiveTx('IncentivePool.claim', 'claim', [], options)
  const claimed = tx.events.find(e => e.name === 'Claimed')
  return { ...tx, amountWei: BigInt(claimed?.args.amount as bigint | undefined ?? 0n) }
}
