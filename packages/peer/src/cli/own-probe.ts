import { PROBE_WINDOW } from '@jobmesh/contracts'
import type { ChainClient } from '@jobmesh/contracts'

// nodes a withdraw's probe scan looks at, at most: on a registry of more, an expired probe may wait for the peers' scans
const WITHDRAW_PROBE_SCAN = 256

/** What {@link settleOwnProbe} did about a node's open probe task. */
export interface OwnProbe {
  /** `answered` (within its window), `closed` (expired, closed by a scan), `waiting` (expired, not reached by the scan). */
  outcome: 'answered' | 'closed' | 'waiting'
  /** The block after which the probe could no longer be answered. */
  expiredAfter: number
}

/**
 * A node that cannot withdraw for an open probe task (`NodeIsBusy` with no verification drawn): answers it while its
 * window lasts (the wallet is the node's, the proof of work is small), else asks the registry's probe scan to close it
 * (scored as missed). Undefined when the node has no open probe.
 */
export async function settleOwnProbe (chain: ChainClient, address: string): Promise<OwnProbe | undefined> {
  const probe = await chain.probeOf(address)
  if (probe.assignedBlock === 0) return undefined
  const expiredAfter = probe.assignedBlock + PROBE_WINDOW
  if (await chain.blockNumber() <= expiredAfter) {
    await chain.answerProbe()
    return { outcome: 'answered', expiredAfter }
  }
  await chain.probeNext(WITHDRAW_PROBE_SCAN)
  const after = await chain.probeOf(address)
  return { outcome: after.assignedBlock === 0 ? 'closed' : 'waiting', expiredAfter }
}
