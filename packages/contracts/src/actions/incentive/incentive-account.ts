import { NoIncentivePoolError } from '../../errors.js'
import type { CallOptions } from '../../client/client-types.js'
import type { ChainContext } from '../../client/context.js'

/** A node's place in the incentive pool (docs/contracts.md, Incentives). */
export interface IncentiveAccount {
  /** The share the pool has recorded for it (0..1): what it earns by now. */
  share: number
  /** The share it would hold if poked now: (wR R + wP P + wB B) / 10 000, 0 when not active (0..1). */
  shareNow: number
  /** Earned and not yet claimed, in wei. */
  earnedWei: bigint
}

const SCALE = 1e6

/** `IncentivePool.accountOf` and `shareOf` of `address` (default: the signer). @throws NoIncentivePoolError and the chain errors */
export async function incentiveAccount (client: Pick<ChainContext, 'contracts' | 'read' | 'address'>, address?: string,
  options?: CallOptions): Promise<IncentiveAccount> {
  const pool = client.contracts.incentivePool
  if (pool == null) throw new NoIncentivePoolError('incentiveAccount: this deployment has no incentive pool')
  const a = address ?? await client.address()
  const [[share, earned], shareNow] = await Promise.all([
    client.read(`IncentivePool.accountOf(${a})`, () => pool.accountOf(a), options),
    client.read(`IncentivePool.shareOf(${a})`, () => pool.shareOf(a), options)
  ])
  return { share: Number(share) / SCALE, shareNow: Number(shareNow) / SCALE, earnedWei: BigInt(earned) }
}
