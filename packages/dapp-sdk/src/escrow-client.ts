import { connectClientChain } from './chain/connection.js'
import { ClientStoppedError } from './errors.js'
import { checkJobId } from './job-id.js'
import { loadEscrowJob } from './job-info.js'
import { listJobs } from './jobs.js'
import { refundJob } from './refund.js'
import type { JobClient, JobClientInit } from './client.js'
import type { ChainContext } from './context.js'

/** What {@link createEscrowClient} needs: a {@link JobClientInit}'s chain settings (no network). */
export type EscrowClientInit = Pick<JobClientInit, 'rpcUrl' | 'provider' | 'signer' | 'deployment' | 'rpcTimeoutMs' | 'txTimeoutMs' | 'confirmations' | 'pollIntervalMs' | 'signal'>

/** The escrow alone: a job's record, this wallet's jobs and refunds, as a {@link JobClient} gives them. */
export interface EscrowClient extends Pick<JobClient, 'address' | 'chainId' | 'status' | 'chainTime' | 'list' | 'refund'> {
  /** Closes the provider the client created (not one passed in). */
  stop(): void
}

/**
 * A client of the escrow only: what needs no jobmesh peer (the escrow record of a job, the jobs a wallet created, a
 * refund) without the libp2p node, the CRDT store and the bootstrap dial of {@link createJobClient} (`jobmesh-dapp
 * status`, `list` and `refund` use it). Its errors are the job client's.
 *
 * @example
 * ```ts
 * const escrow = await createEscrowClient({ rpcUrl, signer: privateKey, deployment })
 * console.log((await escrow.status(jobId)).status)
 * escrow.stop()
 * ```
 */
export async function createEscrowClient (init: EscrowClientInit): Promise<EscrowClient> {
  const chain = await connectClientChain(init)
  const ctx: ChainContext = { chain }
  let stopped = false
  const live = (): void => {
    if (stopped) throw new ClientStoppedError('the escrow client was stopped')
  }
  return {
    address: chain.address,
    chainId: chain.chainId,
    async status (jobId, options = {}) {
      live()
      return await loadEscrowJob(ctx, checkJobId(jobId), options.signal)
    },
    async chainTime (options = {}) {
      live()
      return await chain.client.chainTime({ signal: options.signal })
    },
    async list (options) {
      live()
      return await listJobs(ctx, options)
    },
    async refund (jobId, options = {}) {
      live()
      return await refundJob(ctx, checkJobId(jobId), options)
    },
    stop () {
      if (stopped) return
      stopped = true
      chain.close()
    }
  }
}
