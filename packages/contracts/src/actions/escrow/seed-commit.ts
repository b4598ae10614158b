import type { CallOptions } from '../../client/client-types.js'
import type { ChainContext } from '../../client/context.js'
import type { SeedCommitState } from '../../client/contract-types.js'

/** The verifier seed `address` (default: the signer) last committed (`JobEscrow.seedCommits`). @throws the chain errors */
export async function seedCommit (client: Pick<ChainContext, 'contracts' | 'read' | 'address'>, address?: string, options?: CallOptions): Promise<SeedCommitState> {
  const a = address ?? await client.address()
  const c = await client.read('JobEscrow.seedCommits', () => client.contracts.jobEscrow.seedCommits(a), options)
  return { hash: c.hash, blockNumber: Number(c.blockNumber), index: Number(c.index) }
}
