import { connect, createProvider } from '@jobmesh/contracts'
import type { Deployment } from '@jobmesh/contracts'

/** What one wallet earned from a job. */
export interface Payout {
  address: string
  processor: bigint
  verifier: bigint
}

export interface PayoutsInit {
  rpcUrl: string
  deployment: Deployment
  jobId: string
  /** Wait until the processors' claims add up to the pool (they are claimed by the peers after the release). */
  timeoutMs?: number
  pollMs?: number
  signal?: AbortSignal
}

/**
 * Reads a released job's payouts from the escrow's events: `PaymentClaimed` (processors, one share per MicroJob
 * leaf) and `VerifierPaid` (verifiers, one share each). Waits (bounded) for the peers to claim the processor pool.
 */
export async function readPayouts (init: PayoutsInit): Promise<Payout[]> {
  const provider = createProvider(init.rpcUrl, { chainId: init.deployment.chainId })
  try {
    const { jobEscrow } = connect(init.deployment, provider)
    // every MicroJob's leaf pays pool / MicroJobs; the rounding dust is swept to the treasury after the claim window
    const job = await jobEscrow.jobs(init.jobId)
    const leaves = BigInt(job.macroJobs) * BigInt(job.microJobsPerMacro)
    const pool = BigInt(await jobEscrow.processorPool(init.jobId)) / leaves * leaves
    const deadline = Date.now() + (init.timeoutMs ?? 30_000)
    let payouts = await collect(jobEscrow, init)
    while (sum(payouts) < pool && Date.now() < deadline) {
      init.signal?.throwIfAborted()
      await new Promise(resolve => setTimeout(resolve, init.pollMs ?? 500))
      payouts = await collect(jobEscrow, init)
    }
    return payouts
  } finally {
    provider.destroy()
  }
}

type Escrow = ReturnType<typeof connect>['jobEscrow']

async function collect (escrow: Escrow, init: PayoutsInit): Promise<Payout[]> {
  const from = init.deployment.blockNumber ?? 0
  const byAddress = new Map<string, Payout>()
  const entry = (address: string): Payout => {
    const key = address.toLowerCase()
    let p = byAddress.get(key)
    if (p == null) {
      p = { address, processor: 0n, verifier: 0n }
      byAddress.set(key, p)
    }
    return p
  }
  for (const log of await escrow.queryFilter(escrow.filters.PaymentClaimed(init.jobId), from)) {
    const args = (log as unknown as { args: [string, string, bigint, bigint] }).args
    entry(args[1]).processor += BigInt(args[3])
  }
  for (const log of await escrow.queryFilter(escrow.filters.VerifierPaid(init.jobId), from)) {
    const args = (log as unknown as { args: [string, string, bigint] }).args
    entry(args[1]).verifier += BigInt(args[2])
  }
  return [...byAddress.values()]
}

function sum (payouts: Payout[]): bigint {
  return payouts.reduce((acc, p) => acc + p.processor, 0n)
}
