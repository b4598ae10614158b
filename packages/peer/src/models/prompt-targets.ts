import { isEligible } from '../protocol/index.js'
import type { PeerProfile } from '../jobs/index.js'
import type { HardwareRequirement } from '../protocol/index.js'

/**
 * The nodes a fallback peer may prompt to download a job's model: the other peers whose profile is eligible for the
 * job, not known to hold the model, in random order (the chain refuses any that is inactive, already a holder or
 * prompted within the cooldown).
 */
export function promptTargets (profiles: Iterable<PeerProfile>, job: HardwareRequirement, exclude: ReadonlySet<string>,
  random: () => number = Math.random): string[] {
  const out: string[] = []
  for (const p of profiles) {
    if (exclude.has(p.address.toLowerCase()) || !isEligible(job, p)) continue
    if (!out.includes(p.address)) out.push(p.address)
  }
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    const t = out[i]
    out[i] = out[j]
    out[j] = t
  }
  return out
}
