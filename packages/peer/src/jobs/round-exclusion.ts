import { getAddress } from 'ethers'
import { readProfiles } from './profiles.js'
import type { JobsDocs } from './types.js'
import type { ChainClient } from '@jobmesh/contracts'

/** What a round's exclusions are read from: the chain (`JobRejected`, `peerIdOwner`) and the docs (the peers' profiles, for their PeerIds). */
export interface RoundExclusionComponents {
  chain: Pick<ChainClient, 'rejectedCulprits' | 'peerAddress'>
  docs: JobsDocs
}

/**
 * Rounds (docs/settlement.md): after `settle` rejects a job's results the job is Open again with `rejections + 1`;
 * round r = rejections is processed in its own doc (`roundDocName`), announced with `round = r`, and the results of
 * the submitters slashed in earlier rounds do not count.
 */

/** A submitter slashed for a job: the round whose results were rejected, and its wallet. */
export interface SlashedSubmitter {
  round: number
  address: string
}

/** The job's slashed submitters in round order (one per `JobRejected` event of the job). */
export async function slashedSubmitters (components: Pick<RoundExclusionComponents, 'chain'>, jobId: string,
  options: { signal?: AbortSignal } = {}): Promise<SlashedSubmitter[]> {
  const culprits = await components.chain.rejectedCulprits(jobId, options)
  return culprits.map((address, round) => ({ round, address }))
}

/**
 * PeerIds whose results must not count in `round` of the job: every known peer (by its profile) registered by the
 * wallet of a submitter slashed in an earlier round (`peerIdOwner`, not the address its profile names: that is the
 * peer's own word). Only the registry decides: a `final` record's `submitter` is its signer's word too, and a peer
 * that named a slashed wallet there after its results went into an honest finalizer's manifest had those results
 * dropped by the verifiers and the finalizer slashed (docs/settlement.md, Defences 26).
 */
export async function slashedPeerIds (components: RoundExclusionComponents, jobId: string, round: number,
  options: { signal?: AbortSignal } = {}): Promise<Set<string>> {
  const slashed = (await slashedSubmitters(components, jobId, options)).filter(s => s.round < round)
  const out = new Set<string>()
  if (slashed.length === 0) return out
  const addresses = new Set(slashed.map(s => s.address))
  for (const peerId of (await readProfiles(components, options)).keys()) {
    const owner = await components.chain.peerAddress(peerId, options)
    if (owner != null && addresses.has(getAddress(owner))) out.add(peerId)
  }
  return out
}

/**
 * Decides per result signer whether it may count in a round: not a slashed PeerId, and its wallet (the registry's
 * `peerIdOwner`) is not a slashed submitter's. Lookups are cached per signer.
 */
export async function roundSignerFilter (components: RoundExclusionComponents, jobId: string, round: number,
  options: { signal?: AbortSignal } = {}): Promise<(signer: string) => Promise<boolean>> {
  if (round === 0) return async () => true
  const slashed = new Set((await slashedSubmitters(components, jobId, options)).filter(s => s.round < round).map(s => s.address))
  const peers = await slashedPeerIds(components, jobId, round, options)
  const cache = new Map<string, boolean>()
  return async (signer) => {
    const hit = cache.get(signer)
    if (hit != null) return hit
    let ok = !peers.has(signer)
    if (ok) {
      const address = await components.chain.peerAddress(signer, options)
      ok = address == null || !slashed.has(getAddress(address))
    }
    cache.set(signer, ok)
    return ok
  }
}
