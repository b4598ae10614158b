import type { CallOptions } from '../../client/client-types.js'
import type { ChainContext } from '../../client/context.js'
import type { JobLimits } from '../../client/contract-types.js'

/**
 * The bounds `JobEscrow.createJob` holds a job to (`MIN_VERIFIERS()` and `params()`: `maxVerifiers`, `maxDeadline`),
 * so that a creator refuses a job the escrow would revert before paying for anything. @throws the chain errors
 */
export async function jobLimits (client: Pick<ChainContext, 'contracts' | 'read'>, options?: CallOptions): Promise<JobLimits> {
  const escrow = client.contracts.jobEscrow
  const [min, params] = await Promise.all([
    client.read('JobEscrow.MIN_VERIFIERS', () => escrow.MIN_VERIFIERS(), options),
    client.read('JobEscrow.params', () => escrow.params(), options)
  ])
  return { minVerifiers: Number(min), maxVerifiers: Number(params.maxVerifiers), maxDeadlineSeconds: Number(params.maxDeadline), minFee: BigInt(params.minFee) }
}
