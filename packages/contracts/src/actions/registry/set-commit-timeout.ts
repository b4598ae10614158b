import type { ChainContext } from '../../client/context.js'
import type { TxOptions, TxResult } from '../../client/tx-sender.js'

/**
 * `NodeRegistry.setTimeout`: the signer's node promises to commit its verifications within `pct` percent of a round's
 * commit window (25..100); its stake must cover it (`timeoutStake(pct)` = minStake x 100 / pct).
 * @throws ChainRevertError (`InvalidTimeout`, `InsufficientStake`, `NotRegistered`) and the other chain errors
 */
export async function setCommitTimeout (client: Pick<ChainContext, 'registryTx'>, pct: number, options?: TxOptions): Promise<TxResult> {
  return client.registryTx(`NodeRegistry.setTimeout(${pct})`, 'setTimeout', [pct], options)
}
