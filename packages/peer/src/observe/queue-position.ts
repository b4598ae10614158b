/**
 * A job's place in the escrow's verification queue, computed off-chain (the escrow has no position view).
 *
 * The queue (`VerificationQueue.sol`) orders tasks by priority = value << 64 | (2^64 - 1 - seq): higher task value
 * first, then earlier insertion first. Values are capped at 2^192 - 1. Tasks are grouped by (minVramGb, GPU model);
 * a node that becomes idle takes the best task among the groups it can serve, so the position within the group says
 * how many tasks a suitable node serves before this one, the global position how busy the queue is.
 */

/** One queued task as the off-chain reader sees it. */
export interface QueuedVerification {
  jobId: string
  /** Task value in wei per second (the escrow's `taskValue`). */
  value: bigint
  /** Chain order of its last `VerificationQueued` event: block number, then log index. */
  blockNumber: number
  logIndex: number
  /** Its queue group: `${minVramGb}:${gpuModel}` (chosen model for an `identical` job once fixed). */
  group: string
}

/** Where a queued job stands; positions are 1-based. */
export interface QueuePosition {
  position: number
  of: number
  /** Among the queued tasks of its own (minVramGb, GPU model) group. */
  groupPosition: number
  groupOf: number
}

const VALUE_CAP = (1n << 192n) - 1n

/** Queue order: higher value (capped as on chain) first, then earlier queued first. */
export function compareQueued (a: QueuedVerification, b: QueuedVerification): number {
  const va = a.value > VALUE_CAP ? VALUE_CAP : a.value
  const vb = b.value > VALUE_CAP ? VALUE_CAP : b.value
  if (va !== vb) return va > vb ? -1 : 1
  return a.blockNumber - b.blockNumber || a.logIndex - b.logIndex
}

/** Ranks `jobId` among `queued` (the tasks the escrow still reports queued); `undefined` when it is not among them. */
export function rankQueued (queued: readonly QueuedVerification[], jobId: string): QueuePosition | undefined {
  const id = jobId.toLowerCase()
  const sorted = [...queued].sort(compareQueued)
  const index = sorted.findIndex(t => t.jobId.toLowerCase() === id)
  if (index < 0) return undefined
  const group = sorted[index].group
  const inGroup = sorted.filter(t => t.group === group)
  return {
    position: index + 1,
    of: sorted.length,
    groupPosition: inGroup.findIndex(t => t.jobId.toLowerCase() === id) + 1,
    groupOf: inGroup.length
  }
}
