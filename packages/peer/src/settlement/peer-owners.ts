import { OWNER_RECHECK_MS, UNREGISTERED_RECHECK_MAX_MS, UNREGISTERED_RECHECK_MS } from './constants.js'
import type { ChainClient } from '@jobmesh/contracts'

export interface PeerOwnersComponents {
  chain: Pick<ChainClient, 'peerAddress'>
  /** Default `Date.now`. */
  clock?: () => number
}

/**
 * The registry's owner of each PeerId, kept between reads. Anybody can publish a profile of a PeerId nobody
 * registered, for free, and a peer counting the nodes it knows of reads every profile's owner: 3 000 such profiles
 * took a peer from ~26 to ~90 RPC requests a second. So an owner found is read again after {@link OWNER_RECHECK_MS}
 * and a PeerId nobody registered after {@link UNREGISTERED_RECHECK_MS}, doubling up to
 * {@link UNREGISTERED_RECHECK_MAX_MS} (a real node publishes its profile once registered, so it is found at once).
 */
export interface PeerOwners {
  /** The wallet that registered `peerId`, undefined when none did (as last read). @throws the chain errors */
  of(peerId: string, options?: { signal?: AbortSignal }): Promise<string | undefined>
}

interface Entry { owner?: string, at: number, misses: number }

export function peerOwners (components: PeerOwnersComponents): PeerOwners {
  const clock = components.clock ?? Date.now
  const entries = new Map<string, Entry>()
  const fresh = (e: Entry): boolean => {
    const wait = e.owner != null ? OWNER_RECHECK_MS : Math.min(UNREGISTERED_RECHECK_MS * 2 ** (e.misses - 1), UNREGISTERED_RECHECK_MAX_MS)
    return clock() - e.at < wait
  }
  /** Reads in flight: counts running at once share one read of a PeerId. */
  const reading = new Map<string, Promise<string | undefined>>()
  const read = async (peerId: string, options: { signal?: AbortSignal }): Promise<string | undefined> => {
    const owner = await components.chain.peerAddress(peerId, options)
    const known = entries.get(peerId)
    entries.set(peerId, { owner, at: clock(), misses: owner != null ? 0 : (known?.misses ?? 0) + 1 })
    return owner
  }
  return {
    async of (peerId, options = {}) {
      const known = entries.get(peerId)
      if (known !== undefined && fresh(known)) return known.owner
      let pending = reading.get(peerId)
      if (pending === undefined) {
        pending = read(peerId, options).finally(() => { reading.delete(peerId) })
        reading.set(peerId, pending)
      }
      return await pending
    }
  }
}
