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

/** A peer's hardware, the model it last ran (in memory), and the models it holds locally. */
export interface PeerState extends NodeHardware {
  loadedModelId?: string
  /** Models the peer keeps at hand (`jobmesh start --model`): a job naming one is as warm as the loaded one. */
  heldModelIds?: readonly string[]
}

/**
 * Peer-side job choice (DESIGN section 9): among the candidates the peer is eligible for (its GPU-model group and
 * "Any", `minVramGb <= vramGb`), a job whose `modelId` the peer already holds (in memory, or kept at hand) wins; then the highest
 * value; then the smaller id (so every peer breaks ties the same way). Undefined when none is eligible.
 */
export function chooseJob<C extends JobCandidate> (candidates: Iterable<C>, peer: PeerState): C | undefined {
  let best: C | undefined
  let bestWarm = false
  for (const c of candidates) {
    if (!isEligible(c, peer)) continue
    const warm = c.modelId !== undefined && (c.modelId === peer.loadedModelId || peer.heldModelIds?.includes(c.modelId) === true)
    if (best === undefined ||
      (warm && !bestWarm) ||
      (warm === bestWarm && (c.value > best.value || (c.value === best.value && c.id < best.id)))) {
      best = c
      bestWarm = warm
    }
  }
  return best
}
