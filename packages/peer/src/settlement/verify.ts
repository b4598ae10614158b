import { logger } from '@libp2p/logger'
import { AbiCoder, hexlify, keccak256, randomBytes } from 'ethers'
import { ValidationIndexMismatchError, SpecUnavailableError, WrongJobStatusError } from './errors.js'
import { loadSpecFromChain } from './lookup.js'
import { commitPhaseOver, waitForJob } from './phases.js'
import { outputHash } from '../executor/index.js'
import { sliceJob, validationIndex, verifierHash } from '../protocol/index.js'
import type { SettlementComponents, SettlementOptions } from './types.js'
import type { MicroJobExecutor } from '../processor/executor.js'

const log = logger('jobmesh:settlement')

export interface VerifyResult {
  jobId: string
  /** The sampled MicroJob index of each MacroJob. */
  indexes: number[]
  outputHashes: string[]
  verifierHash: string
  /** False when the job left Submitted before this verifier could reveal. */
  revealed: boolean
}

/** `keccak256(abi.encode(verifierHash, salt, sender))`, the commitment `commitVerification` takes. */
export function commitment (vHash: string, salt: string, sender: string): string {
  return keccak256(AbiCoder.defaultAbiCoder().encode(['bytes32', 'bytes32', 'address'], [vHash, salt, sender]))
}

/**
 * One verification task (DESIGN 8), for a job this node was drawn for: waits for the sample entropy, reads each
 * MacroJob's validation index from the contract and checks it against the protocol core, re-runs those MicroJobs,
 * commits `keccak(verifierHash, salt, sender)`, waits until the reveal opens, reveals.
 *
 * @throws ValidationIndexMismatchError, SpecUnavailableError, WrongJobStatusError, ChainRevertError, ...
 */
export async function verifyJob (components: SettlementComponents & { executor: MicroJobExecutor }, jobId: string,
  options: SettlementOptions = {}): Promise<VerifyResult> {
  const { chain } = components
  const id = jobId.toLowerCase()
  const signal = options.signal
  const me = await chain.address()
  let job = await waitForJob(chain, id, 'sample entropy', j => j.entropySet, options)
  if (job.status !== 'Submitted') throw new WrongJobStatusError(`job ${id} is ${job.status}, not Submitted`)
  const spec = components.loadSpec != null
    ? await components.loadSpec(id, { signal })
    : await loadSpecFromChain(components, id, { signal })
  if (spec.slicing.macroJobs !== job.macroJobs || spec.slicing.microJobsPerMacro !== job.microJobsPerMacro || spec.seed !== job.seed) {
    throw new SpecUnavailableError(`the spec of ${id} does not match the job on chain`)
  }
  const { microJobs } = sliceJob(spec, id)
  const P = job.microJobsPerMacro
  const indexes: number[] = []
  for (let m = 0; m < job.macroJobs; m++) {
    const onChain = await chain.validationIndex(id, m, { signal })
    const local = validationIndex(job.seed, m, job.sampleEntropy, P)
    if (onChain !== local) {
      throw new ValidationIndexMismatchError(`validation index of ${id} MacroJob ${m}: contract ${onChain}, protocol core ${local}`)
    }
    indexes.push(local)
  }
  const outputHashes: string[] = []
  for (let m = 0; m < indexes.length; m++) {
    const d = microJobs[m * P + indexes[m]]
    const output = await components.executor.run({
      jobId: id, spec, macroIndex: d.macroIndex, index: d.index, microId: d.microId, start: d.start, end: d.end
    }, { signal: signal ?? new AbortController().signal })
    outputHashes.push(outputHash(output))
  }
  const vHash = verifierHash(outputHashes)
  // the salt is journaled before the commit: a verifier that restarts between commit and reveal reveals with it
  const saltKey = `salt/${id}@${job.submitBlock}`
  let salt = await components.journal?.get(saltKey)
  if (salt == null) {
    salt = hexlify(randomBytes(32))
    await components.journal?.put(saltKey, salt)
  }
  try {
    await chain.commit(id, commitment(vHash, salt, me), { signal })
    log('committed on %s (indexes %s)', id, indexes.join(','))
  } catch (err) {
    if ((err as { errorName?: string }).errorName !== 'AlreadyCommitted') throw err
    log('already committed on %s (before a restart): revealing with the journaled salt', id)
  }
  job = await waitForJob(chain, id, 'reveal phase', commitPhaseOver, options)
  if (job.status !== 'Submitted') {
    await components.journal?.delete(saltKey)
    return { jobId: id, indexes, outputHashes, verifierHash: vHash, revealed: false }
  }
  try {
    await chain.reveal(id, vHash, salt, { signal })
    log('revealed on %s: %s', id, vHash)
  } catch (err) {
    if ((err as { errorName?: string }).errorName !== 'AlreadyRevealed') throw err
  }
  await components.journal?.delete(saltKey)
  return { jobId: id, indexes, outputHashes, verifierHash: vHash, revealed: true }
}
