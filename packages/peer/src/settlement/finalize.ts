import { logger } from '@libp2p/logger'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { JOB_STATUS_NAMES, revertName } from '@jobmesh/contracts'
import { AbiCoder, ZeroAddress, keccak256 } from 'ethers'
import { ensureOutputs } from './availability.js'
import { MANIFEST_VERSION } from './constants.js'
import { JobIncompleteError, NoPayeesError } from './errors.js'
import { loadSpecFromChain } from './lookup.js'
import { encodeManifest } from './manifest.js'
import { namedPayees, payeesOverCap } from './named-payees.js'
import { standIns } from './own-results.js'
import { checkWork } from './work-check.js'
import { roundRecords } from './sample.js'
import { microKey } from '../coord/index.js'
import { roundDocName } from '../crdt/index.js'
import { finalMap, payeeResolver } from '../jobs/index.js'
import { resultTree, sliceJob, toHex } from '../protocol/index.js'
import { rawOutputCid } from '../storage/index.js'
import type { FinalRecord } from '../jobs/index.js'
import type { ChainRevertError } from '@jobmesh/contracts'
import type { Manifest, ManifestEntry } from './manifest.js'
import type { RoundRecords } from './sample.js'
import type { SettlementComponents } from './types.js'
import type { JobSpec } from '../protocol/index.js'

const log = logger('jobmesh:settlement')

export interface FinalizeOptions {
  signal?: AbortSignal
  /** The job's spec; default: `components.loadSpec`, else `ipfs://<specCid>` of its JobCreated event. */
  spec?: JobSpec
  /** How long one output may take to arrive before it is regenerated (ms), default 10 000. */
  outputFetchTimeoutMs?: number
  /** Outputs fetched or regenerated at once, default 8. */
  outputConcurrency?: number
  /** Poll interval while waiting for the block after the results commitment (ms). */
  pollMs?: number
  /**
   * Called once `submitResults` is mined, before anything else: the submission's verifier draw is this node's duty
   * from that block on, whatever happens to the rest of the finalization (a stop, a failed record write).
   */
  onSubmitted?(): Promise<void>
}

export interface FinalizeResult {
  /** The processing round (the job's rejections on chain) this finalization read. */
  round?: number
  /** `submitted`: this call submitted; `already`: the job was past Open (someone else submitted, or it ended). */
  outcome: 'submitted' | 'already'
  /** The on-chain status seen before submitting (`Open` when this call submitted). */
  status: string
  manifest?: Manifest
  manifestCid?: string
  txHash?: string
  blockNumber?: number
  /** PeerIds caught signing other peers' results as their own (docs/settlement.md, Work tags): not paid. */
  copiers?: string[]
  /** PeerIds caught signing outputs this node's re-run did not give (docs/settlement.md, Defences 27): not paid. */
  fakers?: string[]
}

/**
 * Builds the manifest of a completed round of a job from the round's doc (`round` default 0): per MicroJob the
 * counting result and its payee (the signer's wallet, `payeeOf`). In a round > 0 the results of the culprits
 * slashed for this job in earlier rounds are refused (`roundSignerFilter`).
 *
 * @throws JobIncompleteError, NoPayeesError
 */
export async function buildManifest (components: Pick<SettlementComponents, 'docs' | 'chain' | 'privateKey'>, jobId: string,
  spec: JobSpec, options: { signal?: AbortSignal, round?: number, records?: RoundRecords } = {}): Promise<Manifest> {
  const id = jobId.toLowerCase()
  const round = options.round ?? 0
  const records = options.records ?? await roundRecords(components, id, round, options)
  const { microJobs } = sliceJob(spec, id)

  const entries: ManifestEntry[] = []
  const payee = payeeResolver(components, options)
  const missing: string[] = []
  for (const d of microJobs) {
    const r = (await records.of(d)).counting
    if (r == null) {
      missing.push(microKey(d.macroIndex, d.index))
      continue
    }
    const outputHash = toHex(r.outputHash)
    entries.push({
      microId: d.microId, macroIndex: d.macroIndex, index: d.index, start: d.start, end: d.end, outputHash,
      outputCid: r.outputCid ?? rawOutputCid(outputHash), size: r.size, signer: r.signer, payee: await payee(r.signer)
    })
  }
  if (missing.length > 0) {
    throw new JobIncompleteError(`${missing.length} MicroJobs of ${id} round ${round} have no trusted result (first: ${missing.slice(0, 5).join(', ')})`)
  }

  if (entries.length > 0 && entries.every(e => e.payee === ZeroAddress)) {
    throw new NoPayeesError(`no processor of ${id} has a payout address`)
  }
  return {
    version: MANIFEST_VERSION,
    jobId: id,
    resultRoot: resultTree(entries).root,
    microJobs: entries
  }
}

/** The `commitResults` commitment: `keccak256(abi.encode(jobId, round, resultRoot, manifestCid, sender))`. */
export function resultCommitment (jobId: string, round: number, resultRoot: string, manifestCid: string, sender: string): string {
  return keccak256(AbiCoder.defaultAbiCoder().encode(['bytes32', 'uint256', 'bytes32', 'string', 'address'], [jobId, round, resultRoot, manifestCid, sender]))
}

/** The job status named by a `WrongStatus(jobId, status)` revert, when it names a known one. */
function refusingStatus (err: unknown): string | undefined {
  const status = (err as ChainRevertError).errorArgs?.[1]
  const name = JOB_STATUS_NAMES[Number(status)]
  return name === undefined || name === 'Open' ? undefined : name
}

/**
 * Finalizes a completed job (DESIGN 8): builds the result tree (one leaf per MicroJob with its payee) and the
 * manifest, makes sure this node holds every output of the manifest (`ensureOutputs`: fetched, else regenerated with
 * the executor, sha256 checked, pinned; a withheld output whose re-run differs becomes this node's own signed result
 * and leaf, `standIns`), adds the manifest to IPFS, commits to the results (`commitResults`), submits
 * them from a later block (`submitResults`), and writes a signed `final` record in the job doc. Idempotent: a job that is no longer Open on chain is left alone (`outcome: 'already'`).
 *
 * @throws JobIncompleteError, NoPayeesError, OutputUnavailableError, SpecUnavailableError, ChainRevertError, RpcUnreachableError, ...
 */
export async function finalizeJob (components: SettlementComponents, jobId: string, options: FinalizeOptions = {}): Promise<FinalizeResult> {
  const id = jobId.toLowerCase()
  const signal = options.signal
  const job = await components.chain.job(id, { signal })
  const { status, rejections: round } = job
  if (status !== 'Open') {
    log('job %s is %s: nothing to finalize', id, status)
    return { outcome: 'already', status, round }
  }
  const spec = options.spec ?? (components.loadSpec != null
    ? await components.loadSpec(id, { signal })
    : await loadSpecFromChain(components, id, { signal }))
  const records = await roundRecords(components, id, round, { signal })
  const built = await buildManifest(components, id, spec, { signal, round, records })
  // availability: this node holds (pinned) every output it submits, fetched or regenerated, before the root goes on
  // chain; a recorded output nobody serves whose re-run differs (faked and withheld) becomes this node's own result
  const self = peerIdFromPrivateKey(components.privateKey).toString()
  const asSelf = { signer: self, payee: await payeeResolver(components, { signal })(self) }
  // a MicroJob with results of several signers is re-run: only the signers whose work tag checks may be paid
  // a signer whose wallet cannot lock the bond is not paid: the submission names every payee, locking its bond
  const bond = await components.chain.submissionBond(job.fee, { signal })
  let checked = await checkWork(components, records, id, spec, built.microJobs, { signal, self: asSelf, bond })
  // a submission names at most MAX_PAYEES payees: the MicroJobs of those with the fewest leaves beyond that are re-run
  const leaveOut = payeesOverCap(checked.entries, asSelf.payee, await components.chain.maxPayees({ signal }))
  if (leaveOut.size > 0) {
    log('%s: its leaves pay more wallets than a submission may name; %d left out, their MicroJobs re-run', id, leaveOut.size)
    checked = await checkWork(components, records, id, spec, built.microJobs, { signal, self: asSelf, bond, leaveOut })
  }
  const held = await ensureOutputs(components, id, spec, checked.entries, {
    signal,
    fetchTimeoutMs: options.outputFetchTimeoutMs,
    concurrency: options.outputConcurrency,
    replaceAs: asSelf
  })
  const stand = await standIns(components, records, held.replaced, held.digests, { signal })
  await records.writeOwn([...checked.own, ...stand.own], { signal })
  const standing = new Map(stand.entries.map(e => [microKey(e.macroIndex, e.index), e]))
  const microJobs = held.entries.map(e => standing.get(microKey(e.macroIndex, e.index)) ?? e)
  // the root follows the leaves: a stand-in changes one
  const manifest: Manifest = { ...built, resultRoot: resultTree(microJobs).root, microJobs }
  const manifestCid = await components.store.addBytes(encodeManifest(manifest), { signal })
  // availability: r other peers hold the manifest (every payee can claim) and each output besides its producer
  const replicated = { cid: manifestCid, outputs: manifest.microJobs.map(e => e.outputCid) }
  await components.replicate?.(id, replicated, manifest.microJobs.map(e => e.signer), { signal })
  let tx
  try {
    const me = await components.chain.address()
    const committed = await components.chain.commitResults(id, resultCommitment(id, round, manifest.resultRoot, manifestCid, me), { signal })
    // the reveal must come from a later block than the commitment
    await components.chain.waitForBlock(committed.blockNumber + 1, { signal, ...(options.pollMs == null ? {} : { pollMs: options.pollMs }) })
    const payees = namedPayees(manifest.microJobs, me)
    tx = await components.chain.submitResults(id, { resultRoot: manifest.resultRoot, manifestCid, payees }, { signal })
  } catch (err) {
    if (revertName(err) === 'WrongStatus') {
      // the status that refused it (a later read may see the next round Open again)
      const refusedBy = refusingStatus(err) ?? await components.chain.jobStatus(id, { signal })
      return { outcome: 'already', status: refusedBy, round, manifest, manifestCid }
    }
    throw err
  }
  log('submitted %s round %d: manifest %s, block %d', id, round, manifestCid, tx.blockNumber)
  await options.onSubmitted?.()
  const record: FinalRecord = {
    manifestCid,
    resultRoot: manifest.resultRoot,
    submitter: await components.chain.address(),
    txHash: tx.hash,
    blockNumber: tx.blockNumber
  }
  const doc = await components.docs.open(roundDocName(id, round), { signal })
  await finalMap(doc, id, round).set(self, new TextEncoder().encode(JSON.stringify(record)), components.privateKey)
  return { outcome: 'submitted', status, round, manifest, manifestCid, txHash: tx.hash, blockNumber: tx.blockNumber, copiers: checked.copiers, fakers: checked.fakers }
}
