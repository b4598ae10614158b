import type { CallOptions } from '../../client/client-types.js'
import type { ChainContext } from '../../client/context.js'

/** `JobEscrow.MAX_PAYEES`: the most payees one submission may name (`TooManyPayees` past it). @throws the chain errors */
export async function maxPayees (client: Pick<ChainContext, 'contracts' | 'read'>, options?: CallOptions): Promise<number> {
  return Number(await client.read('JobEscrow.MAX_PAYEES', () => client.contracts.jobEscrow.MAX_PAYEES(), options))
}
