import { logger } from '@libp2p/logger'
import { AbiCoder, ZeroAddress, ZeroHash, hexlify, keccak256, randomBytes } from 'ethers'
import { ValidationIndexMismatchError, SpecUnavailableError, WrongJobStatusError } from './errors.js'
import {
  COMMIT_MARGIN_BLOCKS, DEFAULT_RECORDS_WAIT_MS, DEFAULT_SETTLEMENT_POLL_MS, EVIDENCE_PULL_INTERVAL_MS, RERUN_TIMEOUT_MS
} from './constants.js'
import { loadSpecFromChain } from './lookup.js'
import { pullFromSubmitter } from './evidence.js'
import { commitPhaseOver, inRound, waitForJob, waitForSample } from './phases.js'
import { proveIfSubmitterSilent } from './prove.js'
import { revealSeed } from './seeds.js'
import { evidenceComplete, judgeSample, provenLeaves, roundRecords } from './sample.js'
import { anySignal, pollUntil, revertName } from '@jobmesh/contracts'
import { outputHash } from '../executor/index.js'
import { resultLeafHash, sampleExecutionDigest, samplePositions, sliceJob, validationIndex, verifierHash } from '../protocol/index.js'
import type { SettlementComponents, SettlementOptions } from './types.js'
import type { RoundWaitOptions } from './phases.js'
import type { EscrowJobState, SampleLeaf } from '@jobmesh/contracts'
import type { MicroJobExecutor } from '../executor/index.js'

const log = logger('jobmesh:settlement')

export interface VerifyResult {
  jobId: string
  /** The sampled MicroJobs' global positions, in sample order. */
  positions: number[]
  /** This verifier's re-run output hashes, in sample order. */
  outputHashes: string[]
  /** The execution digest of its re-runs (`sampleExecutionDigest`), committed with its vote. */
  executionDigest: string
  /** The leaf hashes it expected. */
  expected: string[]
  /** Its vote: -1 the sample matched, else the first sample position it found wrong. */
  firstBad: number
  processorBlame: boolean
  /** False when the job left Submitted (or the sample was never proven) before this verifier could reveal. */
  revealed: boolean
}

/** `keccak256(abi.encode(verifierHash, processorBlame, salt, sender))`, the commitment `commitVerification` takes. */
export function commitment (vHash: string, processorBlame: boolean, salt: string, sender: string): string {
  return keccak256(AbiCoder.defaultAbiCoder().encode(['bytes32', 'bool', 'bytes32', 'address'], [vHash, processorBlame, salt, sender]))
}

function noVote (jobId: string): VerifyResult {
  return { jobId, positions: [], outputHashes: [], executionDigest: ZeroHash, expected: [], firstBad: -1, processorBlame: false, revealed: false }
}

const NO_LEAF: SampleLeaf = { microId: ZeroHash, macroIndex: 0, index: 0, outputHash: ZeroHash, payee: ZeroAddress }

/** The first sample position whose proven leaf is not the one expected, -1 when all match (as `judgeSample` votes). */
function firstMismatch (expected: string[], proven: SampleLeaf[]): number {
  return proven.findIndex((leaf, i) => resultLeafHash(leaf) !== expected[i])
}

/** Reveals this verifier's seed; a window already closed (or a job settled meanwhile) is not an error here. */
async function revealSeedIfOpen (components: SettlementComponents, id: string, options: SettlementOptions): Promise<void> {
  try {
    await revealSeed(components.chain, id, options)
  } catch (err) {
    const name = revertName(err)
    if (name !== 'SeedWindowClosed' && name !== 'WrongStatus') throw err
    log('could not reveal the seed of %s: %s', id, name)
  }
}

/**
 * One verification task (docs/settlement.md), for a job this node was drawn for: waits for the sample entropy and
 * the proven sample (`SampleProven`; proving it itself when the submitter has not, `proveIfSubmitterSilent`), re-runs
 * the sampled MicroJobs, judges each proven leaf against its own re-run and the round's signed results
 * (`judgeSample`; on its re-runs alone when no proof came before the commit window's margin), commits
 * `keccak(verifierHash(expected, executionDigest), blame, salt, sender)`, waits until the reveal opens, reveals its
 * expected and the proven leaf hashes (a proof that landed after its commit included) and the execution digest of
 * its re-runs.
 *
 * @throws ValidationIndexMismatchError, SpecUnavailableError, WrongJobStatusError, ChainRevertError, ...
 */
export async function verifyJob (components: SettlementComponents & { executor: MicroJobExecutor }, jobId: string,
  options: SettlementOptions = {}): Promise<VerifyResult> {
  const { chain } = components
  const id = jobId.toLowerCase()
  const signal = options.signal
  // the sample is fixed by the drawn verifiers' seeds: reveal ours, then wait for the others' (or the window's end)
  const drawn = await waitForJob(chain, id, 'all verifiers', j => j.assigned === j.k, options)
  // every later wait ends with this round: a round restarted meanwhile is drawn anew (a new assignment, a new duty)
  const inThisRound = { ...options, round: drawn.submitBlock }
  await revealSeedIfOpen(components, id, options)
  const job = await waitForSample(chain, id, inThisRound)
  if (job.status !== 'Submitted') throw new WrongJobStatusError(`job ${id} is ${job.status}, not Submitted`)
  if (!inRound(job, drawn.submitBlock)) return noVote(id)
  // a submitter gone after its submission proves nothing: the verifiers prove the sample from its manifest then
  const proof = proveIfSubmitterSilent(components, id, inThisRound).catch((err: Error) => {
    if (signal?.aborted !== true) log('could not prove the sample of %s: %e', id, err)
    return false
  })
  try {
    return await voteOnSample(components, id, job, inThisRound)
  } finally {
    await proof
  }
}

/** The vote of {@link verifyJob} on the fixed sample of the round `inThisRound.round`: re-run, judge, commit, reveal. */
async function voteOnSample (components: SettlementComponents & { executor: MicroJobExecutor }, id: string, fixed: EscrowJobState,
  inThisRound: RoundWaitOptions & { round: number }): Promise<VerifyResult> {
  const { chain } = components
  const signal = inThisRound.signal
  const me = await chain.address()
  let job = fixed
  const mine = (await chain.verifiers(id, { signal })).find(v => v.node.toLowerCase() === me.toLowerCase())
  if (mine?.seeded !== true) {
    // without a seed the escrow takes no vote from this node (it withheld one, by fault or on purpose)
    log('no seed of ours in the sample of %s: no vote', id)
    return noVote(id)
  }
  // the signed results the judgement rests on are in the submitter's copies of the MacroJobs' docs (the sample takes
  // MicroJobs of every MacroJob): pull them while loading and re-running
  const { rejections: round, submitter } = job
  const every = Array.from({ length: job.macroJobs }, (_, m) => m)
  // each pull ends within the interval, whatever the number of MacroJobs: the commit deadline is checked between pulls
  const pull = async (): Promise<number> => await pullFromSubmitter(components, id, round, submitter, {
    macroJobs: every, timeoutMs: EVIDENCE_PULL_INTERVAL_MS, signal: anySignal([signal], EVIDENCE_PULL_INTERVAL_MS)
  })
  let pulledAt = Date.now()
  void pull().catch(() => 0)
  const spec = components.loadSpec != null
    ? await components.loadSpec(id, { signal })
    : await loadSpecFromChain(components, id, { signal })
  if (spec.slicing.macroJobs !== job.macroJobs || spec.slicing.microJobsPerMacro !== job.microJobsPerMacro || spec.seed !== job.seed) {
    throw new SpecUnavailableError(`the spec of ${id} does not match the job on chain`)
  }
  const P = job.microJobsPerMacro
  const onChain = await chain.validationIndex(id, 0, { signal })
  const local = validationIndex(job.seed, 0, job.sampleEntropy, P)
  if (onChain !== local) throw new ValidationIndexMismatchError(`validation index of ${id} MacroJob 0: contract ${onChain}, protocol core ${local}`)
  const positions = samplePositions(job.seed, job.macroJobs, P, job.samples, job.sampleEntropy)
  const { microJobs } = sliceJob(spec, id)
  const outputHashes: string[] = []
  const digests: string[] = []
  for (const pos of positions) {
    const d = microJobs[pos]
    const run = await components.executor.run({
      jobId: id, spec, macroIndex: d.macroIndex, index: d.index, microId: d.microId, start: d.start, end: d.end
    }, { signal: signal ?? new AbortController().signal, timeoutMs: RERUN_TIMEOUT_MS })
    outputHashes.push(outputHash(run.output))
    digests.push(run.digest)
  }
  const executionDigest = sampleExecutionDigest({ jobId: id, submitBlock: inThisRound.round }, digests)
  // the proven leaves (anyone proves them once the entropy is set): what this verifier judges
  // commit before the window closes even when nobody proved the sample (then the submitter is at fault)
  job = await waitForJob(chain, id, 'proven sample', (j, head) => j.proven || (j.commitDeadline !== 0 && head + COMMIT_MARGIN_BLOCKS > j.commitDeadline), inThisRound)
  if (!inRound(job, inThisRound.round)) return { jobId: id, positions, outputHashes, executionDigest, expected: [], firstBad: -1, processorBlame: false, revealed: false }
  const proven = job.proven ? await provenLeaves(components, id, job.submitBlock, { signal }) : undefined
  // the vote and its salt are journaled before the commit: a verifier that restarts between commit and reveal
  // reveals exactly what it committed
  const voteKey = `salt/${id}@${job.submitBlock}`
  const journaled = await components.journal?.get(voteKey)
  let vote: { salt: string, expected: string[], processorBlame: boolean, executionDigest: string }
  if (journaled != null && journaled.startsWith('{')) {
    vote = JSON.parse(journaled) as typeof vote
  } else {
    const records = await roundRecords(components, id, round, { signal })
    const sample = positions.map((pos, i) => ({ descriptor: microJobs[pos], outputHash: outputHashes[i], digest: digests[i], proven: proven?.[i] }))
    // the round's doc may still be syncing: wait (bounded, and never into the last blocks of the commit window) for
    // the signed results the judgement rests on, pulling the doc from the submitter and the connected peers meanwhile
    try {
      await pollUntil(async () => {
        if (job.commitDeadline !== 0 && (await chain.blockNumber({ signal })) + COMMIT_MARGIN_BLOCKS > job.commitDeadline) return true
        if (await evidenceComplete(components, records, sample, { signal })) return true
        if (Date.now() - pulledAt >= EVIDENCE_PULL_INTERVAL_MS) {
          pulledAt = Date.now()
          await Promise.all([
            pull().catch(() => 0),
            ...records.docNames().map(async name => await components.docs.confirm?.(name, { timeoutMs: EVIDENCE_PULL_INTERVAL_MS, signal }).catch(() => 0))
          ])
          if (await evidenceComplete(components, records, sample, { signal })) return true
        }
        return undefined
      }, { pollMs: inThisRound.pollMs ?? DEFAULT_SETTLEMENT_POLL_MS, timeoutMs: DEFAULT_RECORDS_WAIT_MS, what: `signed results of ${id}`, signal })
    } catch (err) {
      if (signal?.aborted === true) throw err
      log('judging %s without every signed result its sample rests on', id)
    }
    const judged = await judgeSample(components, records, sample, { signal })
    vote = { salt: hexlify(randomBytes(32)), expected: judged.expected, processorBlame: judged.processorBlame, executionDigest }
    await components.journal?.put(voteKey, JSON.stringify(vote))
  }
  try {
    await chain.commitVerification(id, commitment(verifierHash(vote.expected, vote.executionDigest), vote.processorBlame, vote.salt, me), { signal })
    log('committed on %s (positions %s%s)', id, positions.join(','), proven == null ? ', before any proof' : '')
  } catch (err) {
    if (revertName(err) !== 'AlreadyCommitted') throw err
    log('already committed on %s (before a restart): revealing the journaled vote', id)
  }
  // a sample nobody proved by the reveal deadline takes no reveal: the round is settled against its submitter
  job = await waitForJob(chain, id, 'reveal phase', (j, head) => commitPhaseOver(j, head) && (j.proven || head > j.revealDeadline), inThisRound)
  // a proof that landed after this verifier committed (it voted on its own re-runs): revealed against all the same
  const leaves = proven ?? (job.proven && inRound(job, inThisRound.round) ? await provenLeaves(components, id, job.submitBlock, { signal }) : undefined)
  const firstBad = leaves == null ? -1 : firstMismatch(vote.expected, leaves)
  const result = { jobId: id, positions, outputHashes, executionDigest: vote.executionDigest, expected: vote.expected, firstBad, processorBlame: vote.processorBlame }
  if (!inRound(job, inThisRound.round) || leaves == null) {
    await components.journal?.delete(voteKey)
    return { ...result, revealed: false }
  }
  try {
    await chain.revealVerification(id, {
      salt: vote.salt,
      processorBlame: vote.processorBlame,
      executionDigest: vote.executionDigest,
      expected: vote.expected,
      proven: leaves.map(l => resultLeafHash(l)),
      badLeaf: firstBad === -1 ? NO_LEAF : leaves[firstBad]
    }, { signal })
    log('revealed on %s: %s', id, firstBad === -1 ? 'match' : `wrong leaf at sample position ${firstBad}`)
  } catch (err) {
    if (revertName(err) !== 'AlreadyRevealed') throw err
  }
  await components.journal?.delete(voteKey)
  return { ...result, revealed: true }
}
