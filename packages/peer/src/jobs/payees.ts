import { ZeroAddress, getAddress } from 'ethers'
import { readProfile } from './profiles.js'
import type { JobsDocs } from './types.js'
import type { ChainClient } from '@jobmesh/contracts'

/** What payee lookups need: the docs (profiles) and the registry's `peerIdOwner`. */
export interface PayeeComponents {
  docs: JobsDocs
  chain: Pick<ChainClient, 'peerAddress'>
}

/**
 * The wallet paid for a result signed by `peerId`: the address of its signed peer profile (the PeerId's own key
 * names it, so nobody else can), else the address that registered the PeerId (`peerIdOwner`), else the zero address
 * (a leaf nobody can claim; swept after the claim window). Finalizers and verifiers use this same rule, so a
 * verifier rejects a sampled leaf that pays anyone else (docs/settlement.md).
 */
export async function payeeOf (components: PayeeComponents, peerId: string,
  options: { signal?: AbortSignal } = {}): Promise<string> {
  const address = (await readProfile(components, peerId, options))?.address ?? await components.chain.peerAddress(peerId, options)
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
