import type { ChainContext } from '../../client/context.js'
import type { TxOptions, TxResult } from '../../client/tx-sender.js'

/** What {@link probeNext} did: the probes it assigned and closed, and its transaction (none when there was nothing to do). */
export interface ProbeScan {
  work: number
  tx?: TxResult
}

/**
 * `NodeRegistry.probeNext(maxScan)`: simulated first (a free `eth_call`), sent only when it would assign or close a
 * probe, so peers that scan at the same time pay for one transaction at most each. @throws ChainRevertError and the other chain errors
 */
export async function probeNext (client: Pick<ChainContext, 'contracts' | 'read' | 'registryTx'>, maxScan: number, options: TxOptions = {}): Promise<ProbeScan> {
  const work = Number(await client.read('NodeRegistry.probeNext (simulated)', () => client.contracts.nodeRegistry.probeNext.staticCall(maxScan), options))
  if (work === 0) return { work }
  const tx = await client.registryTx('NodeRegistry.probeNext', 'probeNext', [maxScan], options)
  return { work, tx }
}
