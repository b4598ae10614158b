import { randomInt } from 'node:crypto'
import { logger } from '@libp2p/logger'
import { CID } from 'multiformats/cid'
import { DEFAULT_HOLD_PROOF_SAMPLE, DEFAULT_HOLD_PROOF_TIMEOUT_MS } from './constants.js'
import { HolderNotConnectedError } from './errors.js'
import { proveHolding } from './hold-proof-client.js'
import { dagBlocks } from '../storage/index.js'
import type { HoldProofClientComponents } from './hold-proof-client.js'
import type { CodecLoader } from '@helia/interface'
import type { Libp2p } from 'libp2p'

const log = logger('jobmesh:replication')

/** Resolves when a peer that said it holds the content proves it; rejects when it does not. */
export type HoldCheck = (peer: string, options: { signal: AbortSignal }) => Promise<void>

/** The parts of a node that checks holders: it holds the content, lists its blocks and withholds them. */
export interface HoldCheckComponents extends Pick<HoldProofClientComponents, 'withhold'> {
  libp2p: Pick<Libp2p, 'dialProtocol' | 'getPeers'>
  helia: { blockstore: HoldProofClientComponents['blockstore'], getCodec: CodecLoader }
}

/**
 * Checks holders of content this node holds (`roots`: the CIDs of its DAGs; a DApp's uploads, a finalizer's manifest
 * and outputs): each is challenged over {@link DEFAULT_HOLD_PROOF_SAMPLE} blocks drawn from all of theirs
 * (`proveHolding`: the blocks are withheld from every peer while it answers, so it cannot fetch them from this node on
 * demand). The blocks are listed once, at the first check. A peer that failed a challenge fails every later check at
 * once (a liar asked again withholds nothing more). A challenge's answer time is `init.timeoutMs` (default
 * {@link DEFAULT_HOLD_PROOF_TIMEOUT_MS}): a liar stalls the peers fetching the challenged blocks from this node that
 * long, once.
 *
 * @throws (the returned check) HoldProofFailedError, HolderNotConnectedError, the challenge's errors
 */
export function holdCheck (node: HoldCheckComponents, roots: readonly string[], init: { timeoutMs?: number } = {}): HoldCheck {
  let listed: Promise<CID[]> | undefined
  const blocks = async (signal: AbortSignal): Promise<CID[]> => {
    listed ??= (async () => {
      const all = new Map<string, CID>()
      for (const root of roots) {
        for (const cid of await dagBlocks(node.helia, CID.parse(root), { signal })) all.set(cid.toString(), cid)
      }
      return [...all.values()]
    })()
    // a listing stopped by its caller's signal is made again by the next check
    listed.catch(() => { listed = undefined })
    return await listed
  }
  // a peer that failed once is not challenged again: each challenge withholds blocks the honest holders may be fetching
  const failed = new Map<string, Error>()
  const challenger = { libp2p: node.libp2p, blockstore: node.helia.blockstore, withhold: node.withhold }
  const timeoutMs = init.timeoutMs ?? DEFAULT_HOLD_PROOF_TIMEOUT_MS
  return async (peer, { signal }) => {
    const before = failed.get(peer)
    if (before !== undefined) throw before
    const connected = node.libp2p.getPeers().find(p => p.toString() === peer)
    if (connected === undefined) throw new HolderNotConnectedError(`${peer} said it holds the content but is no longer connected to prove it`)
    const sample = drawSample(await blocks(signal), DEFAULT_HOLD_PROOF_SAMPLE)
    try {
      await proveHolding(challenger, connected, sample, { signal, timeoutMs })
    } catch (err) {
      if (!signal.aborted) failed.set(peer, err as Error)
      throw err
    }
    log('%s proved it holds %d blocks of %d DAGs', peer, sample.length, roots.length)
  }
}

/**
 * {@link holdCheck}s kept by a key (a finalizer's manifest CID), the `max` newest (default 16): a finalization retried
 * lists the blocks once and challenges a liar once, however often it asks the replicas again.
 */
export function holdChecks (node: HoldCheckComponents, init: { timeoutMs?: number, max?: number } = {}):
(key: string, roots: readonly string[]) => HoldCheck {
  const checks = new Map<string, HoldCheck>()
  return (key, roots) => {
    let check = checks.get(key)
    if (check === undefined) {
      check = holdCheck(node, roots, init)
      checks.set(key, check)
      if (checks.size > (init.max ?? 16)) checks.delete(checks.keys().next().value as string)
    }
    return check
  }
}

/**
 * A `counts` of `replicate`: a confirmation counts when `trusted` says so of its peer (none: every peer) and the peer
 * then proves it holds the content (`proves`). A failed proof rejects, which `replicate` logs and does not count.
 */
export function provenHolders (proves: HoldCheck, trusted?: (peer: string, options: { signal: AbortSignal }) => Promise<boolean>):
(peer: string, options: { signal: AbortSignal }) => Promise<boolean> {
  return async (peer, options) => {
    if (trusted != null && !await trusted(peer, options)) return false
    await proves(peer, options)
    return true
  }
}

/** `n` distinct elements of `all` drawn at random (all of them when there are no more). */
function drawSample<T> (all: readonly T[], n: number): T[] {
  const pool = [...all]
  for (let i = 0; i < Math.min(n, pool.length); i++) {
    const j = i + randomInt(pool.length - i)
    ;[pool[i], pool[j]] = [pool[j], pool[i]]
  }
  return pool.slice(0, n)
}
