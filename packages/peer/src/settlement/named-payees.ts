import { ZeroAddress } from 'ethers'
import type { ManifestEntry } from './manifest.js'

/** Each wallet the leaves pay but `submitter`, by its lowercase address: as first written, and its leaves. */
function leavesByPayee (entries: ReadonlyArray<Pick<ManifestEntry, 'payee'>>, submitter: string): Map<string, { payee: string, leaves: number }> {
  const own = submitter.toLowerCase()
  const byPayee = new Map<string, { payee: string, leaves: number }>()
  for (const { payee } of entries) {
    const key = payee.toLowerCase()
    if (key === own || payee === ZeroAddress) continue
    const seen = byPayee.get(key)
    if (seen === undefined) byPayee.set(key, { payee, leaves: 1 })
    else seen.leaves++
  }
  return byPayee
}

/**
 * The payees a submission names (docs/settlement.md, Defences 28): every wallet the leaves pay but the submitter's
 * own, once each. Each has the job's bond locked until the round ends and answers for its leaves.
 */
export function namedPayees (entries: ReadonlyArray<Pick<ManifestEntry, 'payee'>>, submitter: string): string[] {
  return [...leavesByPayee(entries, submitter).values()].map(p => p.payee)
}

/**
 * The payees a submission cannot name when its leaves pay more than `max` wallets (the escrow's `MAX_PAYEES`): those
 * with the fewest leaves (ties by address), lowercase. The finalizer re-runs their MicroJobs and pays itself, so that
 * a job worked on by more nodes than that can still be submitted.
 */
export function payeesOverCap (entries: ReadonlyArray<Pick<ManifestEntry, 'payee'>>, submitter: string, max: number): Set<string> {
  const byPayee = leavesByPayee(entries, submitter)
  if (byPayee.size <= max) return new Set()
  const ranked = [...byPayee].sort(([a, x], [b, y]) => y.leaves - x.leaves || (a < b ? -1 : 1))
  return new Set(ranked.slice(max).map(([wallet]) => wallet))
}
