import { delay } from '@jobmesh/contracts'
import { logger } from '@libp2p/logger'
import { ZeroAddress } from 'ethers'
import { countingResult } from '../coord/index.js'
import { mapBounded } from './bounded.js'
import { DEFAULT_JOIN_GRACE_MS, DEFAULT_OUTPUT_CONCURRENCY, JOIN_POLL_MS, RERUN_TIMEOUT_MS } from './constants.js'
import { outputHash } from '../executor/index.js'
import { payeeResolver } from '../jobs/index.js'
import { toHex } from '../protocol/index.js'
import { isWorkTag, workTag } from '../protocol/index.js'
import { rawOutputCid } from '../storage/index.js'
import type { ManifestEntry } from './manifest.js'
import type { OwnResult } from './own-results.js'
import type { RoundRecords } from './sample.js'
import type { SettlementComponents } from './types.js'
import type { Result } from '../coord/index.js'
import type { JobSpec } from '../protocol/index.js'

const log = logger('jobmesh:settlement:work-check')

export interface WorkCheck {
  /** The entries, each paying a signer whose work tag checked when the MicroJob was contested. */
  entries: ManifestEntry[]
  /** Contested MicroJobs whose results all failed the check: this node's re-run stands in (it must sign them). */
  own: OwnResult[]
  /** MicroJobs re-run to check them. */
  rerun: number
  /** Signers caught signing a correct output without a run of their own (a copy): none of their results is paid. */
  copiers: string[]
  /** Signers caught signing an output the re-run did not give: none of their results is paid either. */
  fakers: string[]
}

/**
 * Whether the payee of a MicroJob must be checked by a re-run: results from more than one signer (a copy of another
 * peer's output hash under a higher term looks like a duplicate run), or a counting result without a work tag.
 * (A counting signer no wallet registered is re-run too: `checkWork`.)
 */
function contested (all: readonly Result[], counting: string): boolean {
  if (new Set(all.map(r => r.signer)).size > 1) return true
  return all.every(r => r.signer !== counting || r.workTag == null)
}

/** A manifest entry and every result of its MicroJob in the round. */
interface EntryRecords {
  e: ManifestEntry
  all: Result[]
}

export interface CheckWorkOptions {
  signal?: AbortSignal
  /** This node, whose re-run stands in where no result may be paid. */
  self: { signer: string, payee: string }
  concurrency?: number
  /**
   * The free stake a paid signer's wallet must hold: the job's bond, which the submission locks on every payee it
   * names (`submitResults` reverts for a payee that cannot lock it) and slashes from the payee of a wrong leaf.
   */
  bond: bigint
  /** Wallets (lowercase) the submission will not name, so not paid: past the escrow's `MAX_PAYEES` (`payeesOverCap`). */
  leaveOut?: ReadonlySet<string>
  /**
   * How long, from the check's start, a signer whose join of the job this node's RPC does not show yet is waited for
   * (ms): a processor's join is mined before its first MicroJob, but another RPC may be a few blocks behind. Default
   * {@link DEFAULT_JOIN_GRACE_MS}.
   */
  joinGraceMs?: number
}

/**
 * Whether a wallet joined the job, waiting for a join not mined yet until one deadline shared by the whole check
 * (`joinGraceMs` from its start), polled once a second.
 */
function joinWaiter (components: Pick<SettlementComponents, 'chain'>, jobId: string, options: CheckWorkOptions): (wallet: string) => Promise<boolean> {
  const deadline = Date.now() + (options.joinGraceMs ?? DEFAULT_JOIN_GRACE_MS)
  return async (wallet) => {
    for (;;) {
      if (await components.chain.hasJoined(jobId, wallet, { signal: options.signal })) return true
      const left = deadline - Date.now()
      if (left <= 0) return false
      await delay(Math.min(JOIN_POLL_MS, left), options.signal)
    }
  }
}

/**
 * Whether a result signer may be paid, and so blamed, for a leaf: a wallet registered its PeerId, and the submission
 * can name that wallet, locking the job's bond of its stake (docs/settlement.md, Defences 28): it joined the job, it
 * is neither exiting nor kicked out, and its free stake covers `bond`. A payee the submission cannot name does not
 * answer for its leaf: its fake would be the submitter's. Cached per signer.
 */
function payableSigners (components: Pick<SettlementComponents, 'chain'>, jobId: string, payee: (signer: string) => Promise<string>,
  options: CheckWorkOptions): (signer: string) => Promise<boolean> {
  const cache = new Map<string, Promise<boolean>>()
  const joinedBy = joinWaiter(components, jobId, options)
  const check = async (signer: string): Promise<boolean> => {
    const wallet = await payee(signer)
    if (wallet === ZeroAddress || options.leaveOut?.has(wallet.toLowerCase()) === true) return false
    if (wallet.toLowerCase() !== options.self.payee.toLowerCase() && !await joinedBy(wallet)) return false
    // the free stake of a node that is exiting or kicked out is 0: the registry locks nothing of it
    return await components.chain.freeStake(wallet, { signal: options.signal }) >= options.bond
  }
  return async (signer) => {
    let hit = cache.get(signer)
    if (hit === undefined) {
      hit = check(signer)
      cache.set(signer, hit)
    }
    return await hit
  }
}

/**
 * Who ran the MicroJobs whose results disagree about it (docs/settlement.md, Work tags). Any peer can sign a result
 * with any term for any MicroJob, and the highest term counts; so a peer that copies an honest result's output hash
 * would be paid for work it never did. Its copy cannot carry a valid work tag (`workTag(execution digest, signer)`),
 * but only a re-run yields the digest: for each contested entry the finalizer re-runs the MicroJob, keeps the
 * results with the re-run's output and a tag that checks, and pays the one that counts among them; when none does,
 * its own re-run stands in (listed in `own`). Its output is stored, so `ensureOutputs` finds it locally. A signer
 * caught once (a correct output with a tag that does not check) is a copier: its other results are set aside without
 * a re-run, so one copier costs a few re-runs, not one per copied MicroJob; so is a signer caught with an output the
 * re-run did not give (a faker beside the honest results: a record of any term under another signer contests the
 * MicroJob, and without this a node signing junk for every MicroJob had the finalizer re-run the whole job). Without
 * an executor the entries are left as they are.
 */
export async function checkWork (components: Pick<SettlementComponents, 'docs' | 'chain' | 'executor' | 'store'>, records: RoundRecords,
  jobId: string, spec: JobSpec, entries: readonly ManifestEntry[],
  options: CheckWorkOptions): Promise<WorkCheck> {
  const { executor, store } = components
  const payee = payeeResolver(components, options)
  const payable = payableSigners(components, jobId, payee, options)
  const contestedOnes: EntryRecords[] = []
  for (const e of entries) {
    const { all } = await records.of(e)
    if (executor != null && (contested(all, e.signer) || !(await payable(e.signer)))) contestedOnes.push({ e, all })
  }
  if (executor == null || contestedOnes.length === 0) return { entries: [...entries], own: [], rerun: 0, copiers: [], fakers: [] }

  const caught = new Set<string>()
  const fakers = new Set<string>()
  const setAside = (signer: string): boolean => caught.has(signer) || fakers.has(signer)
  let rerun = 0
  const paying = async (e: ManifestEntry, r: Result): Promise<ManifestEntry> => {
    const hash = toHex(r.outputHash)
    return { ...e, outputHash: hash, outputCid: r.outputCid ?? rawOutputCid(hash), size: r.size, signer: r.signer, payee: await payee(r.signer) }
  }
  const check = async ({ e, all }: EntryRecords, signal: AbortSignal): Promise<{ entry: ManifestEntry, own?: OwnResult }> => {
    // a copier or a faker caught on another MicroJob: its records here are set aside, and what is left may need no re-run
    const rest = all.filter(r => !setAside(r.signer))
    const left = countingResult(rest, undefined)
    if (rest.length < all.length && left != null && !contested(rest, left.signer) && await payable(left.signer)) return { entry: await paying(e, left) }
    rerun++
    const run = await executor.run({ jobId, spec, macroIndex: e.macroIndex, index: e.index, microId: e.microId, start: e.start, end: e.end }, { signal, timeoutMs: RERUN_TIMEOUT_MS })
    const hash = outputHash(run.output)
    await store.addOutput(run.output, { signal })
    const correct = all.filter(r => toHex(r.outputHash) === hash)
    for (const r of all) if (!correct.includes(r)) fakers.add(r.signer)
    const valid = correct.filter(r => isWorkTag(r.workTag, run.digest, r.signer))
    for (const r of correct) if (!valid.includes(r)) caught.add(r.signer)
    const paid: Result[] = []
    for (const r of valid) if (await payable(r.signer)) paid.push(r)
    const best = countingResult(paid, undefined)
    if (best != null) {
      if (best.signer !== e.signer) log('%s %d.%d: %s counted without a valid work tag; pays %s', jobId, e.macroIndex, e.index, e.signer, best.signer)
      return { entry: await paying(e, best) }
    }
    log.error('%s %d.%d: no result has a valid work tag; this node\'s re-run stands in', jobId, e.macroIndex, e.index)
    const entry = { ...e, outputHash: hash, outputCid: rawOutputCid(hash), size: run.output.byteLength, ...options.self }
    return { entry, own: { ...entry, workTag: workTag(run.digest, options.self.signer) } }
  }
  const concurrency = options.concurrency ?? DEFAULT_OUTPUT_CONCURRENCY
  const decided = new Map<ManifestEntry, { entry: ManifestEntry, own?: OwnResult }>()
  const checkAll = async (list: EntryRecords[]): Promise<void> => {
    const out = await mapBounded(list, concurrency, check, options.signal)
    list.forEach(({ e }, i) => decided.set(e, out[i]))
  }
  await checkAll(contestedOnes)
  // a signer set aside above is checked where it signed alone too: its result there was not contested
  const suspects: EntryRecords[] = []
  for (const e of entries) if (!decided.has(e) && setAside(e.signer)) suspects.push({ e, all: (await records.of(e)).all })
  await checkAll(suspects)
  log('%s: %d MicroJobs checked, %d re-run, copiers %o, fakers %o', jobId, decided.size, rerun, [...caught], [...fakers])
  return {
    entries: entries.map(e => decided.get(e)?.entry ?? e),
    own: [...decided.values()].flatMap(c => c.own == null ? [] : [c.own]),
    rerun,
    copiers: [...caught],
    fakers: [...fakers]
  }
}
