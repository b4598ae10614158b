import type { CallOptions } from '../client/client-types.js'
import type { ChainContext } from '../client/context.js'

/** A wallet's balance in wei, bounded by the client's RPC timeout. @throws the chain errors */
export async function balance (client: Pick<ChainContext, 'provider' | 'read'>, address: string, options?: CallOptions): Promise<bigint> {
  return await client.read('eth_getBalance', async () => await client.provider.getBalance(address), options)
}
