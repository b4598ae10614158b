import type { CallOptions } from '../../client/client-types.js'
import type { ChainContext } from '../../client/context.js'
import type { PricingParams } from '../../client/contract-types.js'

/** The network's pricing parameters (`JobEscrow.pricing()`, in ms): every task value comes from them. @throws the chain errors */
export async function pricing (client: Pick<ChainContext, 'contracts' | 'read'>, options?: CallOptions): Promise<PricingParams> {
  const [overheadMs, msPerMicroJob] = await client.read('JobEscrow.pricing', () => client.contracts.jobEscrow.pricing(), options)
  return { overheadMs: Number(overheadMs), msPerMicroJob: Number(msPerMicroJob) }
}
