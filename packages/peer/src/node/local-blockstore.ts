import { FsBlockstore } from 'blockstore-fs'
import type { AbortOptions } from '@libp2p/interface'
import type { CID } from 'multiformats/cid'

/**
 * blockstore-fs whose reads finish opening their file. Its `get` races `fs.open` against the read's signal, so a read
 * aborted while its file opened (a pin cut by its timeout, a fetch given up) left the opened file to the garbage
 * collector, and Node warned: `Closing file descriptor N on garbage collection` (DEP0137). A local file opens at once;
 * the signal is checked before the read and after each chunk, and a read stopped there closes its file.
 */
export class LocalBlockstore extends FsBlockstore {
  override async * get (key: CID, options?: AbortOptions): AsyncGenerator<Uint8Array> {
    options?.signal?.throwIfAborted()
    for await (const chunk of super.get(key)) {
      yield chunk
      options?.signal?.throwIfAborted()
    }
  }
}
