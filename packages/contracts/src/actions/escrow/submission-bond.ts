import type { CallOptions } from '../../client/client-types.js'
import type { ChainContext } from '../../client/context.js'

/** Basis points in one. */
const BPS = 10_000n

/**
 * The stake a node must lock to submit the results of a job paying `fee` (`fee * bondBps / 10 000`, from
 * `JobEscrow.params()`): with less free stake its `submitResults` reverts (`InsufficientFreeStake`). @throws the chain errors
 */
export async function submissionBond (client: Pick<ChainContext, 'contracts' | 'read'>, fee: bigint, options?: CallOptions): Promise<bigint> {
  const params = await client.read('JobEscrow.params', () => client.contracts.jobEscrow.params(), options) as { bondBps: bigint }
  return fee * BigInt(params.bondBps) / BPS
}
