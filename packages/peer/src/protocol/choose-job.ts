import { isEligible } from './eligibility.js'
import type { HardwareRequirement, NodeHardware } from './eligibility.js'

/** An open job as a peer sees it when picking work. */
export interface JobCandidate extends HardwareRequirement {
  id: string
  /** Task value, wei per second. */
  value: bigint
  /** The model the job's code uses, if any. */
  modelId?: string
}

/** A peer's hardware and the model it holds in memory, if any. */
export interface PeerState extends NodeHardware {
  loadedModelId?: string
}

/**
 * Peer-side job choice (DESIGN section 9): among the candidates the peer is eligible for (its GPU-model group and
 * "Any", `minVramGb <= vramGb`), a job whose `modelId` the peer already holds in memory wins; then the highest
 * value; then the smaller id (so every peer breaks ties the same way). Undefined when none is eligible.
 */
export function chooseJob<C extends JobCandidate> (candidates: Iterable<C>, peer: PeerState): C | undefined {
  let best: C | undefined
  let bestWarm = false
  for (const c of candidates) {
    if (!isEligible(c, peer)) continue
    const warm = peer.loadedModelId !== undefined && c.modelId === peer.loadedModelId
    if (best === undefined ||
      (warm && !bestWarm) ||
      (warm === bestWarm && (c.value > best.value || (c.value === best.value && c.id < best.id)))) {
      best = c
      bestWarm = warm
    }
  }
  return best
}
