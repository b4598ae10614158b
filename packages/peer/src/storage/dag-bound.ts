import { setMaxListeners } from 'node:events'
import { createUnsafe } from 'multiformats/block'
import { collect } from './collect.js'
import { PIN_WALK_CONCURRENCY } from './constants.js'
import { ContentTooLargeError } from './errors.js'
import type { Blocks, CodecLoader } from '@helia/interface'
import type { CID } from 'multiformats/cid'

export interface DagBoundComponents {
  blockstore: Pick<Blocks, 'get'>
  getCodec: CodecLoader
}

export interface WalkWithinOptions {
  /** The most bytes of blocks the walk may fetch. */
  maxBytes: number
  signal: AbortSignal
  /** Called with the size of each block the first time it arrives (a pin's timeout grows with it). */
  onBlock?(bytes: number): void
}

/**
 * Fetches every block of the DAG under `cid` (from this node, else over bitswap; up to
 * {@link PIN_WALK_CONCURRENCY} at once), counting the bytes of each block as it arrives, and fails with
 * `ContentTooLargeError` as soon as they pass `maxBytes`: what a pin of `cid` would make this node hold, bounded
 * before the pin is made. A block linked twice is counted twice, so a DAG that links one child over and over (a walk
 * that grows exponentially with its depth) ends at the bound too. When it fails, every fetch still under way is
 * aborted and nothing more is fetched. Returns the bytes walked.
 *
 * @throws ContentTooLargeError, the blockstore's errors (AbortError when `signal` aborts)
 */
export async function walkWithin (components: DagBoundComponents, cid: CID, options: WalkWithinOptions): Promise<number> {
  const { maxBytes, signal } = options
  signal.throwIfAborted()
  const walk = new AbortController()
  const fetching = AbortSignal.any([signal, walk.signal])
  // bitswap listens on it once per peer that wants a block this walk stores (heliaSignal)
  setMaxListeners(Infinity, fetching)
  const pending: CID[] = [cid]
  const running = new Set<Promise<void>>()
  // a block linked many times is counted at each link (the bound) but is progress once
  const arrived = new Set<string>()
  let total = 0
  let failure: Error | undefined

  const visit = async (next: CID): Promise<void> => {
    const bytes = await collect(components.blockstore.get(next, { signal: fetching }), maxBytes, `ipfs://${cid}`)
    total += bytes.byteLength
    if (total > maxBytes) throw new ContentTooLargeError(`ipfs://${cid} is larger than ${maxBytes} bytes`)
    const key = next.toString()
    if (!arrived.has(key)) {
      arrived.add(key)
      options.onBlock?.(bytes.byteLength)
    }
    const block = createUnsafe({ cid: next, bytes, codec: await components.getCodec(next.code) })
    for (const [, link] of block.links()) pending.push(link)
  }

  try {
    while (failure === undefined && (pending.length > 0 || running.size > 0)) {
      while (pending.length > 0 && running.size < PIN_WALK_CONCURRENCY) {
        const one: Promise<void> = visit(pending.pop() as CID)
          .catch((err: Error) => { failure ??= err; walk.abort(err) })
          .finally(() => { running.delete(one) })
        running.add(one)
      }
      await Promise.race(running)
    }
    if (failure !== undefined) throw failure
    return total
  } finally {
    walk.abort()
    // the fetches aborted above settle here, so none outlives the walk
    await Promise.allSettled(running)
  }
}
