import type { CallOptions } from '../../client/client-types.js'
import type { ChainContext } from '../../client/context.js'

/** The sampled MicroJob index of MacroJob `macroIndex` (meaningful once the sample is fixed). @throws the chain errors */
export async function validationIndex (client: Pick<ChainContext, 'contracts' | 'read'>, jobId: string, macroIndex: number, options?: CallOptions): Promise<number> {
  return Number(await client.read('JobEscrow.validationIndex', () => client.contracts.jobEscrow.validationIndex(jobId, macroIndex), options))
}
