import { createHash } from 'node:crypto'

/**
 * A job's start order: the peers that may work on it (this one, the network's processors on `/jobs` and the job's
 * `/macro` subscribers) sorted by `sha256(jobId/peerId)`. Peers that learn a job together see about the same peers, so
 * they agree on the order without a message: the peer at position k < M (MacroJobs) claims MacroJob k, and the others join the rooms those claims
 * open, in the same rotation. Before, every peer claimed the MacroJob first in its own hash order: 16 peer processes
 * over 8 MacroJobs lost 17 claims at a job's start, each a confirm exchange with every peer, while the CPU was the
 * bottleneck (docs/coordination.md, Tenth round).
 */
export interface StartOrder {
  /** This peer's position (0-based) among the job's known peers. */
  position: number
  /** This peer's preference for a MacroJob, lower first: MacroJob `position mod M`, then the next ones in turn. */
  rank(macroIndex: number): Uint8Array
}

/**
 * A peer's key in a job, `sha256(jobId/peerId)` as hex: the job's start order sorts its peers by it, and a peer's job
 * choice breaks ties of pay by it (job-choice.ts), so peers spread over equally paid jobs.
 */
export function peerJobKey (jobId: string, peer: string): string {
  return createHash('sha256').update(`${jobId}/${peer}`).digest('hex')
}

/** The start order of `self` in job `jobId` with M = `macroJobs`, among `peers` (other peers; self is added). */
export function startOrder (self: string, peers: readonly string[], jobId: string, macroJobs: number): StartOrder {
  const key = (peer: string): string => peerJobKey(jobId, peer)
  const mine = key(self)
  let position = 0
  for (const peer of peers) {
    if (peer !== self && key(peer) < mine) position++
  }
  const m = Math.max(1, macroJobs)
  const first = position % m
  return {
    position,
    rank (macroIndex) {
      const step = ((macroIndex - first) % m + m) % m
      const out = new Uint8Array(4)
      new DataView(out.buffer).setUint32(0, step)
      return out
    }
  }
}
