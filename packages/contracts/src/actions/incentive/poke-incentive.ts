import type { ChainContext } from '../../client/context.js'
import type { TxOptions, TxResult } from '../../client/tx-sender.js'

/**
 * `IncentivePool.poke`: settles what `node` earned at its recorded share and records its current one (anyone may poke
 * any node; a node whose share rose pokes itself). @throws NoIncentivePoolError and the chain errors
 */
export async function pokeIncentive (client: Pick<ChainContext, 'incentiveTx' | 'address'>, node?: string, options?: TxOptions): Promise<TxResult> {
  const a = node ?? await client.address()
  return client.incentiveTx(`IncentivePool.poke(${a})`, 'poke', [a], options)
}
