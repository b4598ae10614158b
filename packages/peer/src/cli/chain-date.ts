import type { ChainClient } from '@jobmesh/contracts'

/** A chain time (unix seconds) for people: the date, and how far it is from the chain's head block's time. */
export async function chainDate (chain: Pick<ChainClient, 'chainTime'>, at: number): Promise<string> {
  const now = await chain.chainTime()
  const left = at - now
  const when = new Date(at * 1000).toISOString().replace('.000Z', 'Z')
  if (left <= 0) return `at ${when} (passed)`
  const total = Math.ceil(left / 60)
  const hours = Math.floor(total / 60)
  return `at ${when} (in ${hours > 0 ? `${hours} h ` : ''}${total % 60} min, chain time)`
}
