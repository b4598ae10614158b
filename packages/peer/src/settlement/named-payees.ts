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
