import type { ChainContext } from '../../client/context.js'
import type { TxOptions, TxResult } from '../../client/tx-sender.js'

/** What `submitResults` reveals, and the payees it names. */
export interface SubmitResultsInput {
  resultRoot: string
  manifestCid: string
  /**
   * The wallets the leaves pay, other than the submitter's (at most `MAX_PAYEES`, 256), each of which joined the job
   * (`joinJob`): each has the job's bond locked until the round ends and answers for its leaves; a payee left out does
   * not, its wrong leaf is the submitter's fault. Default: none.
   */
  payees?: readonly string[]
}

/**
 * `JobEscrow.submitResults`: the second half of a submission (a later block than `commitResults`), revealing
 * the committed result root and manifest CID and locking the bonds of the submitter and of the payees it names.
 *
 * @throws ChainRevertError (`InsufficientFreeStake` or `NotRegistered` of a payee that cannot lock the bond,
 * `PayeeNotJoined` of one that did not join the job, `TooManyPayees`, ...) and the other chain errors
 */
export async function submitResults (client: Pick<ChainContext, 'escrowTx'>, jobId: string, input: SubmitResultsInput,
  options?: TxOptions): Promise<TxResult> {
  const args = [jobId, input.resultRoot, input.manifestCid, [...(input.payees ?? [])]]
  return client.escrowTx('JobEscrow.submitResults', 'submitResults', args, options)
}
