import type { CallOptions } from '../../client/client-types.js'
import type { ChainContext } from '../../client/context.js'

/** `NodeRegistry.activeNodes()`: nodes registered, staked and not paused, exiting or kicked out. @throws the chain errors */
export async function activeNodes (client: Pick<ChainContext, 'contracts' | 'read'>, options?: CallOptions): Promise<number> {
  return Number(await client.read('NodeRegistry.activeNodes', () => client.contracts.nodeRegistry.activeNodes(), options))
}
