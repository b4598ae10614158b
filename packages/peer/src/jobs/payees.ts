import { ZeroAddress, getAddress } from 'ethers'
import type { ChainClient } from '@jobmesh/contracts'

/** What payee lookups need: the registry's `peerIdOwner`. */
export interface PayeeComponents {
  chain: Pick<ChainClient, 'peerAddress'>
}

/**
 * The wallet paid, and blamed, for a result signed by `peerId`: the wallet that registered the PeerId (`peerIdOwner`,
 * bound by the PeerId key's own proof at registration), else the zero address (a leaf nobody can claim; swept after
 * the claim window). Not the address a peer profile names: a profile is the peer's own word, so a faker could name
 * another node's wallet and have the escrow slash that node for its fake (docs/settlement.md, Defences).
 * Finalizers and verifiers use this same rule, so a verifier rejects a sampled leaf that pays anyone else.
 */
export async function payeeOf (components: PayeeComponents, peerId: string,
  options: { signal?: AbortSignal } = {}): Promise<string> {
  const address = await components.chain.peerAddress(peerId, options)
  return address == null ? ZeroAddress : getAddress(address)
}

/** {@link payeeOf} with a cache per PeerId, for one manifest or one verification. */
export function payeeResolver (components: PayeeComponents, options: { signal?: AbortSignal } = {}): (peerId: string) => Promise<string> {
  const cache = new Map<string, Promise<string>>()
  return async (peerId) => {
    let hit = cache.get(peerId)
    if (hit == null) {
      hit = payeeOf(components, peerId, options)
      cache.set(peerId, hit)
      hit.catch(() => cache.delete(peerId))
    }
    return hit
  }
}
