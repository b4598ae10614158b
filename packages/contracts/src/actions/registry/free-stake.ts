import type { CallOptions } from '../../client/client-types.js'
import type { ChainContext } from '../../client/context.js'

/**
 * The stake of `address` (default: the signer) not locked by submission bonds (of its own submissions, and of others'
 * that name it as a payee): what the next `submitResults` that it makes, or that names it, can lock. 0 for a node that
 * is exiting or kicked out: the registry locks nothing of theirs (`NotRegistered`).
 * @throws the chain errors
 */
export async function freeStake (client: Pick<ChainContext, 'contracts' | 'read' | 'address'>, address?: string, options?: CallOptions): Promise<bigint> {
  const a = address ?? await client.address()
  const [info, locked] = await Promise.all([
    client.read(`NodeRegistry.nodeInfo(${a})`, () => client.contracts.nodeRegistry.nodeInfo(a), options) as Promise<{ stake: bigint, exiting: boolean, kickedOut: boolean }>,
    client.read(`NodeRegistry.lockedStake(${a})`, () => client.contracts.nodeRegistry.lockedStake(a), options) as Promise<bigint>
  ])
  if (info.exiting || info.kickedOut) return 0n
  return info.stake > locked ? info.stake - locked : 0n
}
