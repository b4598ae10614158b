import { labelId } from '../../client/labels.js'
import { emitted } from '../../client/emitted.js'
import type { ChainContext } from '../../client/context.js'
import type { CreateJobInput } from '../../client/contract-types.js'
import type { TxOptions, TxResult } from '../../client/tx-sender.js'

/** A mined `createJob`: the job's id and the task value the escrow computed (wei per second, its `JobCreated` event). */
export interface CreatedJob extends TxResult {
  jobId: string
  taskValue: bigint
}

/**
 * `JobEscrow.createJob`: creates and funds a job with `fee` wei. GPU model and model are names, hashed with
 * {@link labelId}.
 *
 * @throws ChainRevertError (e.g. `UnderfundedJob`), ChainRequestError when the transaction emitted no `JobCreated`,
 * and the other chain errors
 */
export async function createJob (client: Pick<ChainContext, 'escrowTx'>, input: CreateJobInput, fee: bigint, options?: TxOptions): Promise<CreatedJob> {
  const params = {
    specCid: input.specCid,
    nonce: input.nonce,
    jobRoot: input.jobRoot,
    seed: input.seed,
    macroJobs: input.macroJobs,
    microJobsPerMacro: input.microJobsPerMacro,
    minVramGb: input.minVramGb,
    gpuModel: labelId(input.gpuModel),
    modelId: labelId(input.modelId),
    identicalHardware: input.identicalHardware ?? false,
    k: input.k,
    samples: input.samples ?? 1,
    deadline: input.deadline,
    secondsPerMicroJob: input.secondsPerMicroJob
  }
  const tx = await client.escrowTx('JobEscrow.createJob', 'createJob', [params], options, fee)
  const created = emitted(tx, 'JobCreated', 'JobEscrow.createJob')
  return { ...tx, jobId: String(created.jobId).toLowerCase(), taskValue: BigInt(created.taskValue as bigint) }
}
