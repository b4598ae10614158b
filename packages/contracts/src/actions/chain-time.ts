import { ChainRequestError } from '../errors.js'
import type { CallOptions } from '../client/client-types.js'
import type { ChainContext } from '../client/context.js'

/** Unix seconds of the latest block: the clock the escrow compares deadlines with. @throws the chain errors */
export async function chainTime (client: Pick<ChainContext, 'provider' | 'read'>, options?: CallOptions): Promise<number> {
  const block = await client.read('eth_getBlockByNumber', () => client.provider.getBlock('latest'), options)
  if (block === null) throw new ChainRequestError('the RPC endpoint returned no latest block')
  return block.timestamp
}
