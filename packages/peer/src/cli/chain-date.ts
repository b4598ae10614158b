import type { ChainClient } from '@jobmesh/contracts'

/** A chain time (unix seconds) for people: the date, and how far it is from the chain's head block's time. */
export async function chainDate (chain: Pick<ChainClient, 'chainTime'>, at: number): Promise<string> {
  // loaded here, not at the top: the observe folder's index loads the network observer, and every CLI command imports
  // this file through the program's command list (`jobmesh status`: 1.28 s of CPU with it, 0.88 s without)
  const { isoSeconds, timeLeft } = await import('../observe/index.js')
  const left = at - await chain.chainTime()
  if (left <= 0) return `at ${isoSeconds(at)} (passed)`
  return `at ${isoSeconds(at)} (in ${timeLeft(left)}, chain time)`
}
