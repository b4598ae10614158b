import { isoSeconds, timeLeft } from '../observe/index.js'
import type { ChainClient } from '@jobmesh/contracts'

/** A chain time (unix seconds) for people: the date, and how far it is from the chain's head block's time. */
export async function chainDate (chain: Pick<ChainClient, 'chainTime'>, at: number): Promise<string> {
  const left = at - await chain.chainTime()
  if (left <= 0) return `at ${isoSeconds(at)} (passed)`
  return `at ${isoSeconds(at)} (in ${timeLeft(left)}, chain time)`
}
