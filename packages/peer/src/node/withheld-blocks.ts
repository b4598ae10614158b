import type { AbortOptions } from '@libp2p/interface'
import type { Blockstore, Pair } from 'interface-blockstore'
import type { CID } from 'multiformats/cid'

/** A blockstore whose blocks can be held back from every read for a while. */
export interface WithheldBlocks {
  /** The blockstore to give helia: a read of a withheld block waits until it is released (or the read's signal aborts). */
  blockstore: Blockstore
  /**
   * Holds `cids` back from every read, bitswap's serving of them to other peers included, until the returned function
   * is called (once; a block withheld twice at once is released by the second call). `has` still says the block is
   * here, so a peer that asks for it is served once it is released, not told it is missing.
   */
  withhold(cids: readonly CID[]): () => void
}

/**
 * Wraps a blockstore so that some of its blocks can be withheld. A node withholds the blocks it challenges a holder
 * with (a DApp's client, of its inputs; a finalizer, of its outputs: `replication/hold-proof-client.ts`): the holder
 * cannot fetch them from it while it answers.
 */
export function withheldBlocks (inner: Blockstore): WithheldBlocks {
  const counts = new Map<string, number>()
  // the reads waiting for a release (each checks its block again when woken)
  const waiting = new Set<() => void>()

  const waitFor = async (cid: CID, options?: AbortOptions): Promise<void> => {
    while (counts.has(cid.toString())) {
      options?.signal?.throwIfAborted()
      await new Promise<void>((resolve, reject) => {
        const wake = (): void => {
          waiting.delete(wake)
          options?.signal?.removeEventListener('abort', onAbort)
          resolve()
        }
        const onAbort = (): void => {
          waiting.delete(wake)
          reject(options?.signal?.reason)
        }
        waiting.add(wake)
        options?.signal?.addEventListener('abort', onAbort, { once: true })
      })
    }
  }

  async function * get (cid: CID, options?: AbortOptions): AsyncGenerator<Uint8Array> {
    await waitFor(cid, options)
    yield * inner.get(cid, options)
  }

  async function * getMany (cids: AsyncIterable<CID> | Iterable<CID>, options?: AbortOptions): AsyncGenerator<Pair> {
    for await (const cid of cids) {
      await waitFor(cid, options)
      yield { cid, bytes: inner.get(cid, options) }
    }
  }

  const blockstore = new Proxy(inner, {
    get (target, prop) {
      if (prop === 'get') return get
      if (prop === 'getMany') return getMany
      const value: unknown = Reflect.get(target, prop, target)
      return typeof value === 'function' ? value.bind(target) : value
    }
  })

  return {
    blockstore,
    withhold (cids) {
      const keys = cids.map(c => c.toString())
      for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1)
      let done = false
      return () => {
        if (done) return
        done = true
        for (const key of keys) {
          const left = (counts.get(key) ?? 1) - 1
          if (left <= 0) counts.delete(key)
          else counts.set(key, left)
        }
        for (const wake of [...waiting]) wake()
      }
    }
  }
}
