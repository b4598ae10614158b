import type { CallOptions } from '../../client/client-types.js'
import type { ChainContext } from '../../client/context.js'

/** The part of the job's fee its processors claim (wei). @throws the chain errors */
export async function processorPool (client: Pick<ChainContext, 'contracts' | 'read'>, jobId: string, options?: CallOptions): Promise<bigint> {
  return client.read('JobEscrow.processorPool', () => client.contracts.jobEscrow.processorPool(jobId), options)
}
