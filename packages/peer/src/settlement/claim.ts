import { revertName } from '@jobmesh/contracts'
import { logger } from '@libp2p/logger'
import { getAddress } from 'ethers'
import { WrongJobStatusError } from './errors.js'
import { loadManifest } from './lookup.js'
import { manifestTree } from './manifest.js'
import type { Manifest } from './manifest.js'
import type { SettlementComponents } from './types.js'
import type { SampleLeaf } from '@jobmesh/contracts'

const log = logger('jobmesh:settlement')

export interface ClaimResult {
  /** Processor payment claimed by this call (wei). */
  claimed: bigint
  /** Credits withdrawn by this call (verifier fees, slash shares; wei). */
  withdrawn: bigint
}

/** Leaves claimed per transaction. */
const CLAIM_BATCH = 64

/**
 * Claims this node's result leaves of a Released job (each pays its payee `processorPool / MicroJobs`, positional
 * proofs against resultRoot) and withdraws its credits (verifiers are paid into `credits`). Idempotent: claimed
 * leaves and empty credits are skipped. A node that neither submitted the released round nor joined it has no leaf
 * (an honest finalizer pays only the round's joined payees and itself, docs/settlement.md Defences 28): its
 * manifest is not loaded, only the credits are withdrawn (every peer sees every release; before 2026-12-05 each
 * fetched every released job's manifest).
 *
 * @throws WrongJobStatusError (job not Released), InvalidManifestError, ChainRevertError, ...
 */
export async function claimPayouts (components: Pick<SettlementComponents, 'chain' | 'docs' | 'store'>, jobId: string,
  options: { signal?: AbortSignal, manifest?: Manifest, withdraw?: boolean } = {}): Promise<ClaimResult> {
  const { chain } = components
  const id = jobId.toLowerCase()
  const signal = options.signal
  const job = await chain.job(id, { signal })
  if (job.status !== 'Released') throw new WrongJobStatusError(`job ${id} is ${job.status}, not Released`)
  const me = getAddress(await chain.address())
  const withdrawn = async (): Promise<bigint> => options.withdraw === false ? 0n : await withdrawCredits(components, me, signal)
  if (getAddress(job.submitter) !== me && !await chain.hasJoined(id, me, { signal })) return { claimed: 0n, withdrawn: await withdrawn() }
  const manifest = options.manifest?.resultRoot.toLowerCase() === job.resultRoot.toLowerCase()
    ? options.manifest
    : (await loadManifest(components, id, job.resultRoot, { signal, round: job.rejections })).manifest
  const tree = manifestTree(manifest)
  const mine: number[] = []
  for (const [pos, e] of manifest.microJobs.entries()) {
    if (getAddress(e.payee) !== me) continue
    if (await chain.isClaimed(id, pos, { signal })) continue
    mine.push(pos)
  }
  const each = await chain.processorPool(id, { signal }) / BigInt(manifest.microJobs.length)
  let claimed = 0n
  for (let i = 0; i < mine.length; i += CLAIM_BATCH) {
    const batch = mine.slice(i, i + CLAIM_BATCH)
    const leaves: SampleLeaf[] = batch.map(pos => {
      const e = manifest.microJobs[pos]
      return { microId: e.microId, macroIndex: e.macroIndex, index: e.index, outputHash: e.outputHash, payee: e.payee }
    })
    try {
      await chain.claim(id, leaves, batch.map(pos => tree.getProof(pos)), { signal })
      claimed += each * BigInt(batch.length)
      log('claimed %d leaves (%s wei) of %s', batch.length, each * BigInt(batch.length), id)
    } catch (err) {
      if (revertName(err) !== 'AlreadyClaimed') throw err
    }
  }
  return { claimed, withdrawn: await withdrawn() }
}

/** Withdraws the wallet's escrow credits, if any: the amount withdrawn (0 when none, or withdrawn meanwhile). */
async function withdrawCredits (components: Pick<SettlementComponents, 'chain'>, me: string, signal?: AbortSignal): Promise<bigint> {
  const credit = await components.chain.credits(me, { signal })
  if (credit === 0n) return 0n
  try {
    await components.chain.withdrawCredit({ signal })
    return credit
  } catch (err) {
    if (revertName(err) !== 'NothingToWithdraw') throw err
    return 0n
  }
}
