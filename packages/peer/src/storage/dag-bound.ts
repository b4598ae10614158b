import { depthFirstWalker } from '@helia/utils'
import { ContentTooLargeError } from './errors.js'
import type { GraphWalkerComponents } from '@helia/interface'
import type { CID } from 'multiformats/cid'

/**
 * Fetches every block of the DAG under `cid` (from this node, else over bitswap), counting the bytes of each block
 * as the walk reaches it, and fails with `ContentTooLargeError` as soon as they pass `maxBytes`: what a pin of `cid`
 * would make this node hold, bounded before the pin is made. A block linked twice is counted twice, so a DAG that
 * links one child over and over (a walk that grows exponentially with its depth) ends at the bound too. Returns the
 * bytes walked.
 *
 * @throws ContentTooLargeError, the blockstore's errors (AbortError when `signal` aborts)
 */
export async function walkWithin (components: GraphWalkerComponents, cid: CID, maxBytes: number,
  signal: AbortSignal): Promise<number> {
  const walker = depthFirstWalker()(components)
  let total = 0
  for await (const node of walker.walk(cid, { signal })) {
    total += node.block.bytes.byteLength
    if (total > maxBytes) throw new ContentTooLargeError(`ipfs://${cid} is larger than ${maxBytes} bytes`)
  }
  return total
}
