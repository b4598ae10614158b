import type { CallOptions } from '../../client/client-types.js'
import type { ChainContext } from '../../client/context.js'

/** `JobEscrow.credits` of `address` (default: the signer): payouts waiting for `withdrawCredit`. @throws the chain errors */
export async function credits (client: Pick<ChainContext, 'contracts' | 'read' | 'address'>, address?: string, options?: CallOptions): Promise<bigint> {
  const a = address ?? await client.address()
  return client.read('JobEscrow.credits', () => client.contracts.jobEscrow.credits(a), options)
}
