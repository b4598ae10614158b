import type { CallOptions } from '../../client/client-types.js'
import type { ChainContext } from '../../client/context.js'

/** Whether the result leaf at a global MicroJob position was claimed. @throws the chain errors */
export async function isClaimed (client: Pick<ChainContext, 'contracts' | 'read'>, jobId: string, position: number, options?: CallOptions): Promise<boolean> {
  return client.read('JobEscrow.isClaimed', () => client.contracts.jobEscrow.isClaimed(jobId, position), options)
}
