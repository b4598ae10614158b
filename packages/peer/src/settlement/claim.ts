import { logger } from '@libp2p/logger'
import { getAddress } from 'ethers'
import { WrongJobStatusError } from './errors.js'
import { loadManifest } from './lookup.js'
import { manifestTrees, payoutLeaves } from './manifest.js'
import type { Manifest } from './manifest.js'
import type { SettlementComponents } from './types.js'

const log = logger('jobmesh:settlement')

export interface ClaimResult {
  /** Processor payment claimed by this call (wei). */
  claimed: bigint
  /** Credits withdrawn by this call (verifier fees, slash shares; wei). */
  withdrawn: bigint
}

/**
 * Claims this node's payout leaf of a Released job (Merkle proof against payoutRoot) and withdraws its credits
 * (verifiers are paid into `credits`). Idempotent: claimed leaves and empty credits are skipped.
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
  const manifest = options.manifest?.payoutRoot.toLowerCase() === job.payoutRoot.toLowerCase()
    ? options.manifest
    : (await loadManifest(components, id, job.resultRoot, { signal, round: job.rejections })).manifest
  const { payouts } = manifestTrees(manifest)
  let claimed = 0n
  for (const [i, leaf] of payoutLeaves(manifest).entries()) {
    if (getAddress(leaf.payee) !== me) continue
    if (await chain.isClaimed(id, payouts.leafHash(leaf), { signal })) continue
    try {
      await chain.claim(id, leaf.payee, leaf.amount, payouts.getProof(i), { signal })
      claimed += leaf.amount
      log('claimed %s wei of %s', leaf.amount, id)
    } catch (err) {
      if ((err as { errorName?: string }).errorName !== 'AlreadyClaimed') throw err
    }
  }
  let withdrawn = 0n
  if (options.withdraw !== false) {
    const credit = await chain.credits(me, { signal })
    if (credit > 0n) {
      try {
        await chain.withdrawCredit({ signal })
        withdrawn = credit
      } catch (err) {
        if ((err as { errorName?: string }).errorName !== 'NothingToWithdraw') throw err
      }
    }
  }
  return { claimed, withdrawn }
}
