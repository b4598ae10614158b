import type { CallOptions } from '../../client/client-types.js'
import type { ChainContext } from '../../client/context.js'

/** One verifier's share of the job's fee (wei). @throws the chain errors */
export async function verifierShare (client: Pick<ChainContext, 'contracts' | 'read'>, jobId: string, options?: CallOptions): Promise<bigint> {
  return client.read('JobEscrow.verifierShare', () => client.contracts.jobEscrow.verifierShare(jobId), options)
}
