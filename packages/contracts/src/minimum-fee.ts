/**
 * The least fee the escrow takes for a job (`JobEscrow.createJob`, `UnderfundedJob`): each verifier's share of the fee
 * must be worth at least `minFee`, so fee x samples / (microJobsPerMacro + k x samples) >= minFee, rounded up.
 */
export function minimumJobFee (minFee: bigint, job: { microJobsPerMacro: number, k: number, samples: number }): bigint {
  const samples = BigInt(Math.max(1, job.samples))
  const units = BigInt(job.microJobsPerMacro) + BigInt(job.k) * samples
  return (minFee * units + samples - 1n) / samples
}
