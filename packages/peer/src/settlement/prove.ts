import { revertName } from '@jobmesh/contracts'
import { logger } from '@libp2p/logger'
import { loadManifest } from './lookup.js'
import { manifestTree } from './manifest.js'
import { waitForJob } from './phases.js'
import { InvalidManifestError } from './errors.js'
import { PROVE_GRACE_BLOCKS } from './constants.js'
import { samplePositions } from '../protocol/index.js'
import type { Manifest } from './manifest.js'
import type { RoundWaitOptions } from './phases.js'
import type { SettlementComponents, SettlementOptions } from './types.js'
import type { EscrowJobState, SampleLeaf } from '@jobmesh/contracts'

const log = logger('jobmesh:settlement')

/**
 * Proves the fixed sample of `job` against its resultRoot: the sampled leaves of the submitted manifest (`manifest`
 * when it is that one, else fetched by its CID) with their positional proofs. A sample proven meanwhile (or a job
 * settled) by someone else is not an error, nor is a proof refused after the round's commit deadline
 * (`ProveWindowClosed`: the round is then settled against its submitter).
 *
 * @throws InvalidManifestError, ManifestUnavailableError, ChainRevertError, ...
 */
export async function proveSample (components: Pick<SettlementComponents, 'chain' | 'docs' | 'store'>, jobId: string,
  job: EscrowJobState, options: SettlementOptions & { manifest?: Manifest } = {}): Promise<void> {
  const id = jobId.toLowerCase()
  const signal = options.signal
  const manifest = options.manifest?.resultRoot.toLowerCase() === job.resultRoot.toLowerCase()
    ? options.manifest
    : (await loadManifest(components, id, job.resultRoot, { signal, round: job.rejections })).manifest
  const tree = manifestTree(manifest)
  const leaves: SampleLeaf[] = []
  const proofs: string[][] = []
  for (const pos of samplePositions(job.seed, job.macroJobs, job.microJobsPerMacro, job.samples, job.sampleEntropy)) {
    const e = manifest.microJobs[pos]
    if (e == null || e.macroIndex * job.microJobsPerMacro + e.index !== pos) throw new InvalidManifestError(`manifest of ${id} has no MicroJob at ${pos}`)
    leaves.push({ microId: e.microId, macroIndex: e.macroIndex, index: e.index, outputHash: e.outputHash, payee: e.payee })
    proofs.push(tree.getProof(pos))
  }
  try {
    await components.chain.proveSample(id, leaves, proofs, { signal })
    log('proved the sample of %s', id)
  } catch (err) {
    const name = revertName(err)
    // past the commit deadline nobody may prove (the verifiers must have the whole reveal window to answer a
    // proof): the round is settled against its submitter, unproven
    if (name === 'ProveWindowClosed') {
      log('too late to prove the sample of %s: its commit deadline passed', id)
      return
    }
    if (name !== 'AlreadyProven' && name !== 'WrongStatus') throw err
  }
}

/**
 * A drawn verifier's stand-in for its submitter (docs/settlement.md, Verification): once the sample is fixed, waits
 * {@link PROVE_GRACE_BLOCKS} for the submitter's proof and proves the sample itself when none came (a submitter gone
 * after its submission would otherwise leave every verifier without leaves to judge, and the round without a
 * quorum). Returns whether this node proved it; ends with the round (`options.round`).
 *
 * @throws InvalidManifestError, ManifestUnavailableError, ChainRevertError, ...
 */
export async function proveIfSubmitterSilent (components: Pick<SettlementComponents, 'chain' | 'docs' | 'store'>, jobId: string,
  options: RoundWaitOptions): Promise<boolean> {
  const id = jobId.toLowerCase()
  const fixedAt = await components.chain.blockNumber(options)
  const job = await waitForJob(components.chain, id, 'submitter\'s proof', (j, head) => j.proven || head >= fixedAt + PROVE_GRACE_BLOCKS, options)
  if (job.status !== 'Submitted' || job.proven || !job.entropySet || (options.round != null && job.submitBlock !== options.round)) return false
  log('the submitter of %s did not prove its sample within %d blocks: proving it', id, PROVE_GRACE_BLOCKS)
  await proveSample(components, id, job, options)
  return true
}
