import type { CallOptions } from '../../client/client-types.js'
import type { ChainContext } from '../../client/context.js'
import type { VerifierState } from '../../client/contract-types.js'

/** `JobEscrow.verifiersOf(jobId)`: the verifiers drawn this round and their progress. @throws the chain errors */
export async function verifiers (client: Pick<ChainContext, 'contracts' | 'read'>, jobId: string, options?: CallOptions): Promise<VerifierState[]> {
  const vs = await client.read('JobEscrow.verifiersOf', () => client.contracts.jobEscrow.verifiersOf(jobId), options)
  return vs.map(v => ({
    node: v.node,
    commitOrder: Number(v.commitOrder),
    revealOrder: Number(v.revealOrder),
    committed: v.committed,
    revealed: v.revealed,
    badPos: Number(v.badPos),
    processorBlame: v.processorBlame,
    digestTag: Number(v.digestTag),
    seeded: v.seeded
  }))
}
