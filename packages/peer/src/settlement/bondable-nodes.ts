import { knownNodeWallets } from './eligible-nodes.js'
import type { JobsDocs } from '../jobs/index.js'
import type { ChainClient } from '@jobmesh/contracts'

/** How many known nodes could submit a job paying some fee, and the bond that takes. */
export interface BondableNodes {
  /** The stake a submitter locks (`fee x bondBps`, wei). */
  bond: bigint
  /** Known nodes (by their profiles) whose free stake covers it. */
  nodes: number
  /** The largest free stake among the known nodes (wei; 0 with none known). */
  largestFree: bigint
  /** Nodes known (their profiles, registered): with none, nothing can be told. */
  known: number
}

export interface BondableNodesComponents {
  docs: JobsDocs
  chain: Pick<ChainClient, 'peerAddress' | 'submissionBond' | 'freeStake'>
}

/**
 * Which known nodes could lock the bond of a job paying `fee`: the peers work only on jobs whose bond their own free
 * stake covers (`bondCapacity`), so with none a job is never processed.
 *
 * @throws the chain errors, AbortError
 */
export async function bondableNodes (components: BondableNodesComponents, fee: bigint, options: { signal?: AbortSignal } = {}): Promise<BondableNodes> {
  const { chain } = components
  const bond = await chain.submissionBond(fee, options)
  let nodes = 0
  let largestFree = 0n
  const wallets = await knownNodeWallets(components, options)
  for (const wallet of wallets) {
    const free = await chain.freeStake(wallet, options)
    if (free > largestFree) largestFree = free
    if (free >= bond) nodes++
  }
  return { bond, nodes, largestFree, known: wallets.length }
}
