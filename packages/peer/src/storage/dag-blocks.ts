import { createUnsafe } from 'multiformats/block'
import * as raw from 'multiformats/codecs/raw'
import { identity } from 'multiformats/hashes/identity'
import { collect } from './collect.js'
import { MAX_BLOCK_BYTES } from './constants.js'
import { ContentTooLargeError } from './errors.js'
import type { DagBoundComponents } from './dag-bound.js'
import type { CID } from 'multiformats/cid'

/** Most blocks {@link dagBlocks} lists by default. */
export const DEFAULT_MAX_DAG_BLOCKS = 1_000_000

/**
 * The CIDs of the stored blocks of the DAG under `root`, each once, read from this node alone (`offline`: a block not
 * here fails, nothing is fetched). Only blocks that can link are read (raw leaves, most of a large file's bytes, are
 * listed by their CID); blocks inlined in their CID (identity hashes) are not stored and not listed.
 *
 * @throws ContentTooLargeError (more than `maxBlocks`), the blockstore's errors (a block not here, AbortError)
 */
export async function dagBlocks (components: DagBoundComponents, root: CID,
  options: { signal?: AbortSignal, maxBlocks?: number } = {}): Promise<CID[]> {
  const maxBlocks = options.maxBlocks ?? DEFAULT_MAX_DAG_BLOCKS
  const seen = new Set<string>()
  const found: CID[] = []
  const pending: CID[] = [root]
  for (let cid = pending.pop(); cid !== undefined; cid = pending.pop()) {
    const key = cid.toString()
    if (seen.has(key)) continue
    seen.add(key)
    options.signal?.throwIfAborted()
    if (cid.multihash.code !== identity.code) found.push(cid)
    if (found.length > maxBlocks) throw new ContentTooLargeError(`ipfs://${root} has more than ${maxBlocks} blocks`)
    if (cid.code === raw.code) continue
    const bytes = await collect(components.blockstore.get(cid, { signal: options.signal, offline: true }), MAX_BLOCK_BYTES, `block ${key}`)
    const block = createUnsafe({ cid, bytes, codec: await components.getCodec(cid.code) })
    for (const [, link] of block.links()) pending.push(link)
  }
  return found
}
