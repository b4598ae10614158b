import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { getAddress } from 'ethers'
import { byMacroJob, countingResult, leases, macroDocs, microKey, recordSigner, recordVerifier } from '../coord/index.js'
import { macroDocName, roundDocName } from '../crdt/index.js'
import { payeeResolver, roundKey, roundSignerFilter } from '../jobs/index.js'
import { fromHex, isWorkTag, resultLeafHash, toHex } from '../protocol/index.js'
import { rawOutputCid } from '../storage/index.js'
import type { OwnResult } from './own-results.js'
import type { SettlementComponents } from './types.js'
import type { SampleLeaf } from '@jobmesh/contracts'
import type { Result } from '../coord/index.js'
import type { MicroJobDescriptor } from '../protocol/index.js'

/**
 * The trusted signed results of some MicroJobs of a round, as a verifier or a finalizer reads them from the round's
 * MacroJob docs (`macroDocName`: each opened on first use, with a catch-up from every connected peer that holds it).
 */
export interface RoundRecords {
  /** Trusted results of a MicroJob (every signer), and the one that counts. */
  of(d: Pick<MicroJobDescriptor, 'macroIndex' | 'index'>): Promise<{ all: Result[], counting: Result | undefined }>
  /**
   * Signs this node's own results of some MicroJobs (read with `of` before) into its copies of their MacroJob docs,
   * one update per MacroJob: term 0 (no lease), so they never count over a recorded result (a finalizer's stand-ins,
   * own-results.ts). A doc written is followed first (the others are only read).
   */
  writeOwn(entries: ReadonlyArray<Pick<OwnResult, 'macroIndex' | 'index' | 'outputHash' | 'outputCid' | 'size' | 'workTag'>>, options?: { signal?: AbortSignal }): Promise<void>
  /** Names of the MacroJob docs read so far (to pull them again from the submitter or the connected peers). */
  docNames(): string[]
}

/** Reads the round's MacroJob docs with the round's signer filter (culprits of earlier rounds refused). */
export async function roundRecords (components: Pick<SettlementComponents, 'docs' | 'chain' | 'privateKey'>, jobId: string, round: number,
  options: { signal?: AbortSignal } = {}): Promise<RoundRecords> {
  const id = jobId.toLowerCase()
  const self = peerIdFromPrivateKey(components.privateKey).toString()
  const signer = recordSigner(components.privateKey, self)
  const verifier = recordVerifier()
  const roundDoc = roundDocName(id, round)
  const docs = macroDocs({ signer, verifier, docs: components.docs, leases: leases({ signer, verifier }) }, { roundDoc, jobKey: roundKey(id, round) })
  const opened = new Set<number>()
  const trusted = await roundSignerFilter(components, id, round, options)
  return {
    async of (d) {
      // read, not followed: settlement pulls what it needs, and following every MacroJob's doc would make each of its
      // holders exchange with this peer on its subscription
      const md = await docs.open(d.macroIndex, { signal: options.signal, follow: false })
      opened.add(d.macroIndex)
      const all: Result[] = []
      for (const c of md.results.list(d.macroIndex, d.index)) if (await trusted(c.signer)) all.push(c)
      return { all, counting: countingResult(all, md.microLeases.get(microKey(d.macroIndex, d.index))) }
    },
    async writeOwn (entries, writeOptions = {}) {
      for (const [m, group] of byMacroJob(entries, e => e.macroIndex)) {
        // followed before it is written: a doc only read here is not subscribed, and its write would reach only the
        // subscribers it has then; following it also has its holders pull what this peer writes (catch-up.ts)
        await docs.open(m, { signal: writeOptions.signal })
        docs.transact(m, () => {
          for (const e of group) {
            const cid = e.outputCid === rawOutputCid(e.outputHash) ? undefined : e.outputCid
            docs.results.write(e.macroIndex, e.index, { term: 0, outputHash: fromHex(e.outputHash), size: e.size, outputCid: cid, workTag: e.workTag })
          }
        })
      }
    },
    docNames: () => [...opened].map(m => macroDocName(roundDoc, m))
  }
}

/** A verifier's judgement of the proven sample. */
export interface SampleJudgement {
  /** The leaf hash it expects at each sample position. */
  expected: string[]
  /** Whether, at the first position that differs, the leaf's payee signed the leaf's (wrong) output. */
  processorBlame: boolean
  /** First sample position whose expected leaf differs from the proven one, -1 when none. */
  firstBad: number
}

/** A sampled MicroJob as a verifier judges it: its re-run's output hash and execution digest, and the proven leaf. */
export interface SampledMicroJob {
  descriptor: MicroJobDescriptor
  /** sha256 of this verifier's re-run output (0x hex). */
  outputHash: string
  /** This verifier's re-run execution digest: checks each result's work tag. */
  digest: string
  proven: SampleLeaf | undefined
}

/**
 * Judges the sample (docs/settlement.md, Verification): the expected leaf of each sampled MicroJob has the output
 * hash of this verifier's own re-run, and as payee the proven leaf's payee when a trusted result with that correct
 * output and a work tag that checks against the re-run's digest is signed by a PeerId paying that wallet
 * (`payeeOf`); otherwise the payee of the counting one of those valid results (the zero address without any). So a
 * leaf whose output is wrong, or which pays anyone who did not sign a correct result of a run of its own, differs.
 * Blame goes to the processor when the proven leaf's payee signed the proven output and that result is wrong (its
 * output, or its work tag: a copy of another peer's output).
 */
export async function judgeSample (components: Pick<SettlementComponents, 'docs' | 'chain'>, records: RoundRecords,
  sample: SampledMicroJob[], options: { signal?: AbortSignal } = {}): Promise<SampleJudgement> {
  const payee = payeeResolver(components, options)
  const expected: string[] = []
  let firstBad = -1
  let processorBlame = false
  for (const [pos, s] of sample.entries()) {
    const d = s.descriptor
    const { all } = await records.of(d)
    const rerun = s.outputHash.toLowerCase()
    const ran = (r: Result): boolean => toHex(r.outputHash) === rerun && isWorkTag(r.workTag, s.digest, r.signer)
    const valid = all.filter(ran)
    let expectedPayee: string | undefined
    const proven = s.proven
    if (proven != null) {
      for (const r of valid) {
        if (await payee(r.signer) === getAddress(proven.payee)) expectedPayee = getAddress(proven.payee)
      }
    }
    const counting = countingResult(valid, undefined)
    expectedPayee ??= counting == null ? '0x0000000000000000000000000000000000000000' : await payee(counting.signer)
    const leaf = { microId: d.microId, macroIndex: d.macroIndex, index: d.index, outputHash: rerun, payee: expectedPayee }
    const h = resultLeafHash(leaf)
    expected.push(h)
    if (firstBad === -1 && proven != null && resultLeafHash(proven) !== h) {
      firstBad = pos
      const output = proven.outputHash.toLowerCase()
      for (const r of all) {
        if (toHex(r.outputHash) === output && !ran(r) && await payee(r.signer) === getAddress(proven.payee)) processorBlame = true
      }
    }
  }
  return { expected, processorBlame, firstBad }
}

/**
 * Whether this verifier holds the signed results its judgement of each sampled leaf rests on: for a leaf whose
 * output matches its re-run, a result with that output signed by a PeerId paying the leaf's payee; for a wrong
 * output, a result with that output (whose signer decides the blame); without a proof, any result. A verifier
 * that judged without them would reject an honest leaf (its payee unproven) or blame the submitter for a
 * processor's fake: it waits for them, bounded (`verifyJob`).
 */
export async function evidenceComplete (components: Pick<SettlementComponents, 'docs' | 'chain'>, records: RoundRecords,
  sample: SampledMicroJob[], options: { signal?: AbortSignal } = {}): Promise<boolean> {
  const payee = payeeResolver(components, options)
  for (const s of sample) {
    const { all } = await records.of(s.descriptor)
    const proven = s.proven
    if (proven == null) {
      if (all.length === 0) return false
      continue
    }
    const output = proven.outputHash.toLowerCase()
    const rightOutput = output === s.outputHash.toLowerCase()
    let found = false
    for (const r of all) {
      if (toHex(r.outputHash) !== output) continue
      if (!rightOutput || await payee(r.signer) === getAddress(proven.payee)) found = true
    }
    if (!found) return false
  }
  return true
}

/** The leaves of the job's latest `SampleProven` event at or after `fromBlock` (the current round's proof). */
export async function provenLeaves (components: Pick<SettlementComponents, 'chain'>, jobId: string, fromBlock: number,
  options: { signal?: AbortSignal } = {}): Promise<SampleLeaf[] | undefined> {
  const events = await components.chain.findEvents({ names: ['SampleProven'], topic1: jobId.toLowerCase(), fromBlock }, options)
  const last = events.at(-1)
  if (last == null) return undefined
  const leaves = last.args.leaves as unknown as Array<readonly [string, bigint, bigint, string, string]>
  return leaves.map(l => ({ microId: String(l[0]), macroIndex: Number(l[1]), index: Number(l[2]), outputHash: String(l[3]), payee: getAddress(String(l[4])) }))
}
