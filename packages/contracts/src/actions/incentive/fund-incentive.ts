import type { ChainContext } from '../../client/context.js'
import type { TxOptions, TxResult } from '../../client/tx-sender.js'

/** `IncentivePool.fund`: streams `amountWei` (with what is left of the running stream) to the active nodes over the pool's period. @throws NoIncentivePoolError and the chain errors */
export async function fundIncentive (client: Pick<ChainContext, 'incentiveTx'>, amountWei: bigint, options?: TxOptions): Promise<TxResult> {
  return client.incentiveTx('IncentivePool.fund', 'fund', [], options, amountWei)
}
