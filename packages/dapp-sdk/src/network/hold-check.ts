import { randomInt } from 'node:crypto'
import { proveHolding } from '@jobmesh/peer/replication'
import { dagBlocks } from '@jobmesh/peer/storage'
import { logger } from '@libp2p/logger'
import { CID } from 'multiformats/cid'
import { HOLD_PROOF_SAMPLE } from '../constants.js'
import { HolderNotConnectedError } from '../errors.js'
import type { JobmeshNode } from '@jobmesh/peer/node'

const log = logger('jobmesh:sdk')

/** Whether a peer that said it holds the inputs proves it; rejects when it does not. */
export type HoldCheck = (peer: string, options: { signal: AbortSignal }) => Promise<void>

/**
 * Checks holders of content this client uploaded (`roots`: `ipfs://` URIs): each is challenged over
 * {@link HOLD_PROOF_SAMPLE} blocks drawn from all of theirs (`proveHolding`: the blocks are withheld from every peer
 * while it answers, so it cannot fetch them from this client on demand). The blocks are listed once, at the first check;
 * a peer that failed a challenge fails every later check at once (a liar asked again withholds nothing more).
 *
 * @throws (the returned check) HoldProofFailedError, HolderNotConnectedError, the challenge's errors
 */
export function holdCheck (node: Pick<JobmeshNode, 'libp2p' | 'helia' | 'withhold'>, roots: readonly string[]): HoldCheck {
  let listed: Promise<CID[]> | undefined
  const blocks = async (signal: AbortSignal): Promise<CID[]> => {
    listed ??= (async () => {
      const all = new Map<string, CID>()
      for (const root of roots) {
        for (const cid of await dagBlocks(node.helia, CID.parse(root.slice('ipfs://'.length)), { signal })) all.set(cid.toString(), cid)
      }
      return [...all.values()]
    })()
    // a listing stopped by its caller's signal is made again by the next check
    listed.catch(() => { listed = undefined })
    return await listed
  }
  // a peer that failed once is not challenged again: each challenge withholds blocks the honest holders may be fetching
  const failed = new Map<string, Error>()
  return async (peer, { signal }) => {
    const before = failed.get(peer)
    if (before !== undefined) throw before
    const connected = node.libp2p.getPeers().find(p => p.toString() === peer)
    if (connected === undefined) throw new HolderNotConnectedError(`${peer} said it holds the inputs but is no longer connected to prove it`)
    const sample = drawSample(await blocks(signal), HOLD_PROOF_SAMPLE)
    try {
      await proveHolding({ libp2p: node.libp2p, blockstore: node.helia.blockstore, withhold: node.withhold }, connected, sample, { signal })
    } catch (err) {
      if (!signal.aborted) failed.set(peer, err as Error)
      throw err
    }
    log('%s proved it holds %d blocks of the inputs', peer, sample.length)
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
