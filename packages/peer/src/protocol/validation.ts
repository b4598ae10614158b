import { AbiCoder, keccak256 } from 'ethers'
import { assertBytes32, assertUint256, bytesToBigInt, keccak256Bytes, writeBytes32, writeUint256, writeUint53 } from './bytes.js'
import { InvalidArgumentError } from './errors.js'

const coder = AbiCoder.defaultAbiCoder()

/**
 * Index (inside MacroJob `macroIndex`) of the MicroJob its validation MicroJob re-runs:
 * `uint256(keccak256(abi.encode(uint256 seed, uint256 macroIndex, bytes32 sampleEntropy))) % microJobsPerMacro`.
 */
export function validationIndex (seed: bigint, macroIndex: number, sampleEntropy: string, microJobsPerMacro: number): number {
  assertUint256(seed, 'seed')
  const entropy = assertBytes32(sampleEntropy, 'sampleEntropy')
  if (!Number.isSafeInteger(macroIndex) || macroIndex < 0) throw new InvalidArgumentError('macroIndex must be a non-negative safe integer')
  if (!Number.isSafeInteger(microJobsPerMacro) || microJobsPerMacro < 1) throw new InvalidArgumentError('microJobsPerMacro must be a positive safe integer')
  const buf = new Uint8Array(96)
  writeUint256(buf, 0, seed)
  writeUint53(buf, 32, macroIndex)
  writeBytes32(buf, 64, entropy)
  return Number(bytesToBigInt(keccak256Bytes(buf)) % BigInt(microJobsPerMacro))
}

/**
 * The sample's global MicroJob positions, in sample order: for each MacroJob m, `samples` consecutive MicroJobs
 * from `validationIndex(seed, m, entropy, P)` (modulo P), at `m * P + index`.
 */
export function samplePositions (seed: bigint, macroJobs: number, microJobsPerMacro: number, samples: number, sampleEntropy: string): number[] {
  if (!Number.isSafeInteger(samples) || samples < 1 || samples > microJobsPerMacro) throw new InvalidArgumentError('samples must be in 1..microJobsPerMacro')
  const out: number[] = []
  for (let m = 0; m < macroJobs; m++) {
    const start = validationIndex(seed, m, sampleEntropy, microJobsPerMacro)
    for (let t = 0; t < samples; t++) out.push(m * microJobsPerMacro + (start + t) % microJobsPerMacro)
  }
  return out
}

/**
 * `keccak256(abi.encode(bytes32[] leafHashes, bytes32 executionDigest))`: a verifier's digest of the result leaves
 * it expects, in sample order, and of its re-runs (`sampleExecutionDigest`).
 */
export function verifierHash (leafHashes: string[], executionDigest: string): string {
  const hashes = leafHashes.map((h, i) => assertBytes32(h, `leafHashes[${i}]`))
  return keccak256(coder.encode(['bytes32[]', 'bytes32'], [hashes, assertBytes32(executionDigest, 'executionDigest')]))
}

/** The verification round a sample's execution digest belongs to: the job and the round's submit block. */
export interface VerificationRound {
  jobId: string
  submitBlock: number
}

/**
 * `keccak256(abi.encode(bytes32 jobId, uint256 submitBlock, bytes32[] digests))`: a verifier's execution digest of
 * its sample, from the execution digest of each sampled MicroJob's re-run in sample order, bound to the round.
 * Verifiers that re-ran the same sample in the same round agree on it; the outputs (public) do not yield it, so a
 * matching vote without it counts for nothing (docs/settlement.md). The round is in it because a revealed digest is
 * public: a later round of the same job (or another job of the same code and inputs) that samples the same
 * MicroJobs would otherwise take a digest copied from an earlier reveal.
 */
export function sampleExecutionDigest (round: VerificationRound, digests: string[]): string {
  const jobId = assertBytes32(round.jobId, 'jobId')
  if (!Number.isSafeInteger(round.submitBlock) || round.submitBlock < 0) throw new InvalidArgumentError('submitBlock must be a non-negative safe integer')
  const hashes = digests.map((h, i) => assertBytes32(h, `digests[${i}]`))
  return keccak256(coder.encode(['bytes32', 'uint256', 'bytes32[]'], [jobId, round.submitBlock, hashes]))
}
