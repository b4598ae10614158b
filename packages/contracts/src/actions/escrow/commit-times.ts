import type { CallOptions } from '../../client/client-types.js'
import type { ChainContext } from '../../client/context.js'
import type { CommitTimes } from '../../client/contract-types.js'

/**
 * What sizes a job's commit window (`params()`: `commitWindow`, `secondsPerBlock`; `MAX_RERUN_BLOCKS`): a processor
 * bounds its runs by what a verifier is given to re-run them ({@link rerunAllowanceMs}). @throws the chain errors
 */
export async function commitTimes (client: Pick<ChainContext, 'contracts' | 'read'>, options?: CallOptions): Promise<CommitTimes> {
  const escrow = client.contracts.jobEscrow
  const [params, maxRerun] = await Promise.all([
    client.read('JobEscrow.params', () => escrow.params(), options),
    client.read('JobEscrow.MAX_RERUN_BLOCKS', () => escrow.MAX_RERUN_BLOCKS(), options)
  ])
  return { commitWindowBlocks: Number(params.commitWindow), secondsPerBlock: Number(params.secondsPerBlock), maxRerunBlocks: Number(maxRerun) }
}
