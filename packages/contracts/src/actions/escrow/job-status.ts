import { JOB_STATUS_NAMES } from '../../constants.js'
import type { CallOptions } from '../../client/client-types.js'
import type { ChainContext } from '../../client/context.js'
import type { JobStatusName } from '../../client/contract-types.js'

/** `JobEscrow.statusOf(jobId)` by name (`None` for an unknown id). @throws the chain errors */
export async function jobStatus (client: Pick<ChainContext, 'contracts' | 'read'>, jobId: string, options?: CallOptions): Promise<JobStatusName> {
  const s = await client.read(`JobEscrow.statusOf(${jobId})`, () => client.contracts.jobEscrow.statusOf(jobId), options)
  return JOB_STATUS_NAMES[Number(s)] ?? 'None'
}
