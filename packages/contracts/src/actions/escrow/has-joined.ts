import type { CallOptions } from '../../client/client-types.js'
import type { ChainContext } from '../../client/context.js'

/** Whether `address` joined the job (`joinJob`): a submission may name it as a payee. @throws the chain errors */
export async function hasJoined (client: Pick<ChainContext, 'contracts' | 'read'>, jobId: string, address: string, options?: CallOptions): Promise<boolean> {
  return client.read(`JobEscrow.joined(${address})`, () => client.contracts.jobEscrow.joined(jobId, address), options)
}
