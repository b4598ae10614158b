import { logger } from '@libp2p/logger'
import { getAddress } from 'ethers'
import { readProfiles } from '../jobs/index.js'
import { macroDocName, roundDocName } from '../crdt/index.js'
import { mapBounded } from './bounded.js'
import { EVIDENCE_PULL_CONCURRENCY } from './constants.js'
import type { SettlementComponents } from './types.js'

const log = logger('jobmesh:settlement')

/**
 * The PeerIds of the node whose wallet is `address`: each PeerId whose signed profile names that wallet and which the
 * registry binds to it (`peerIdOwner`). A profile that merely names someone else's wallet is left out.
 */
export async function walletPeerIds (components: Pick<SettlementComponents, 'docs' | 'chain'>, address: string,
  options: { signal?: AbortSignal } = {}): Promise<string[]> {
  const wallet = getAddress(address)
  const out: string[] = []
  for (const [peerId, profile] of await readProfiles(components, options)) {
    if (profile.address !== wallet) continue
    const owner = await components.chain.peerAddress(peerId, options)
    if (owner != null && getAddress(owner) === wallet) out.push(peerId)
  }
  return out
}

/**
 * Pulls MacroJob docs of a round (`macroJobs`, `macroDocName`) from the node that submitted the round's results
 * (docs/settlement.md, Verification). The submitter built every leaf from the signed results in its own copies of
 * the round's MacroJob docs, so those copies hold the evidence of each leaf. Gossip and `confirm` reach connected
 * peers only, and the submitter need not be one of them (a node that joined for this round, reached only through a
 * peer that does not follow the round): it is dialled by PeerId. Returns how many exchanges succeeded; a failure is
 * logged, never thrown (the verifier judges with what it has).
 */
export async function pullFromSubmitter (components: Pick<SettlementComponents, 'docs' | 'chain'>, jobId: string, round: number,
  submitter: string, options: { macroJobs: number[], timeoutMs?: number, signal?: AbortSignal }): Promise<number> {
  const sync = components.docs.sync
  if (sync == null) return 0
  const roundDoc = roundDocName(jobId.toLowerCase(), round)
  const names = options.macroJobs.map(m => macroDocName(roundDoc, m))
  let peers: string[]
  try {
    peers = await walletPeerIds(components, submitter, options)
  } catch (err) {
    options.signal?.throwIfAborted()
    log('PeerId of the submitter %s of %s not found: %e', submitter, jobId, err)
    return 0
  }
  if (peers.length === 0) log('no profile names the submitter %s of %s: its copies of %s cannot be pulled', submitter, jobId, roundDoc)
  // the exchange with the submitter needs the doc open here; not the catch-up with every connected peer first
  // followed (not read): each doc's holders among the connected peers then exchange with this verifier at once, and
  // later records reach it by gossip (k verifiers of a round, each following the MacroJobs it pulls)
  else await Promise.all(names.map(async name => await components.docs.open(name, { signal: options.signal, offline: true })))
  // a few streams at once: a job has up to hundreds of MacroJobs, the submitter takes a bounded number of streams
  const pulled = await mapBounded(peers.flatMap(peer => names.map(name => ({ peer, name }))), EVIDENCE_PULL_CONCURRENCY, async ({ peer, name }) => {
    try {
      await sync.call(components.docs, name, peer, { push: false, timeoutMs: options.timeoutMs, signal: options.signal })
      return true
    } catch (err) {
      log('pull of %s from its submitter %s failed: %e', name, peer, err)
      return false
    }
  }, options.signal)
  options.signal?.throwIfAborted()
  return pulled.filter(ok => ok).length
}
