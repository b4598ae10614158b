import { ZeroAddress } from 'ethers'
import type { ManifestEntry } from './manifest.js'

/**
 * The payees a submission names (docs/settlement.md, Defences 28): every wallet the leaves pay but the submitter's
 * own, once each. Each has the job's bond locked until the round ends and answers for its leaves.
 */
export function namedPayees (entries: ReadonlyArray<Pick<ManifestEntry, 'payee'>>, submitter: string): string[] {
  const own = submitter.toLowerCase()
  const seen = new Map<string, string>()
  for (const { payee } of entries) {
    const key = payee.toLowerCase()
    if (key !== own && payee !== ZeroAddress && !seen.has(key)) seen.set(key, payee)
  }
  return [...seen.values()]
}

/**
 * The payees a submission cannot name when its leaves pay more than `max` wallets (the escrow's `MAX_PAYEES`): those
 * with the fewest leaves (ties by address), lowercase. The finalizer re-runs their MicroJobs and pays itself, so that
 * a job worked on by more nodes than that can still be submitted.
 */
export function payeesOverCap (entries: ReadonlyArray<Pick<ManifestEntry, 'payee'>>, submitter: string, max: number): Set<string> {
  const own = submitter.toLowerCase()
  const leaves = new Map<string, number>()
  for (const { payee } of entries) {
    const key = payee.toLowerCase()
    if (key !== own && payee !== ZeroAddress) leaves.set(key, (leaves.get(key) ?? 0) + 1)
  }
  if (leaves.size <= max) return new Set()
  const ranked = [...leaves].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
  return new Set(ranked.slice(max).map(([wallet]) => wallet))
}
