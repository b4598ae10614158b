/**
 * How many active nodes a job with `verifiers` (k) verifiers needs: the escrow draws its k verifiers among the active
 * nodes besides the one that submitted its results, so k + 1. With fewer, no work on it can be verified nor paid.
 */
export function nodesNeeded (verifiers: number): number {
  return verifiers + 1
}
