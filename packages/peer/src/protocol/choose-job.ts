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
 * value; then the smaller `tieKey` (default: the id itself). A key that differs per peer (the processor's is
 * `sha256(jobId/peerId)`) spreads peers over equally paid jobs instead of sending all of them to one. Undefined when
 * none is eligible.
 */
export function chooseJob<C extends JobCandidate> (candidates: Iterable<C>, peer: PeerState,
  tieKey: (id: string) => string = id => id): C | undefined {
  let best: Ranked<C> | undefined
  for (const c of candidates) {
    if (!isEligible(c, peer)) continue
    const warm = c.modelId !== undefined && (c.modelId === peer.loadedModelId || peer.heldModelIds?.includes(c.modelId) === true)
    const ranked = { c, warm, key: tieKey(c.id) }
    if (best === undefined || outranks(ranked, best)) best = ranked
  }
  return best?.c
}

interface Ranked<C extends JobCandidate> { c: C, warm: boolean, key: string }

/** Warm first, then the higher value, then the smaller tie key. */
function outranks<C extends JobCandidate> (a: Ranked<C>, b: Ranked<C>): boolean {
  if (a.warm !== b.warm) return a.warm
  if (a.c.value !== b.c.value) return a.c.value > b.c.value
  return a.key < b.key
}
