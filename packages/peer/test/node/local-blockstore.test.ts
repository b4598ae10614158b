import { mkdtemp, readdir, readlink, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { patternBytes } from '@jobmesh/testkit'
import { CID } from 'multiformats/cid'
import * as raw from 'multiformats/codecs/raw'
import { sha256 } from 'multiformats/hashes/sha2'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { LocalBlockstore } from '../../src/node/local-blockstore.js'

/** The files under `dir` this process holds open (its other descriptors, sockets of other tests among them, aside). */
async function openFilesUnder (dir: string): Promise<number> {
  const targets = await Promise.all((await readdir('/proc/self/fd')).map(async fd => await readlink(`/proc/self/fd/${fd}`).catch(() => '')))
  return targets.filter(t => t.startsWith(dir)).length
}

async function drain (chunks: AsyncIterable<Uint8Array>): Promise<number> {
  let bytes = 0
  for await (const chunk of chunks) bytes += chunk.byteLength
  return bytes
}

describe('the peer\'s blockstore on disk', () => {
  let dir: string
  let store: LocalBlockstore

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'jobmesh-blockstore-'))
    store = new LocalBlockstore(join(dir, 'blocks'))
    await store.open()
  })
  afterEach(async () => {
    await store.close()
    await rm(dir, { recursive: true, force: true })
  })

  it('a read aborted while its file opens closes the file (blockstore-fs left it to the garbage collector)', async () => {
    const bytes = patternBytes(64 * 1024)
    const cid = CID.createV1(raw.code, await sha256.digest(bytes))
    await store.put(cid, bytes)
    let aborted = 0
    for (let i = 0; i < 40; i++) {
      const ctl = new AbortController()
      // the read runs to its file's open, then the signal aborts
      const read = drain(store.get(cid, { signal: ctl.signal })).catch((err: Error) => err)
      ctl.abort()
      if ((await read) instanceof Error) aborted++
    }
    expect(aborted).toBe(40)
    // a read to its end after them: the opens queued before it have finished
    expect(await drain(store.get(cid))).toBe(bytes.byteLength)
    expect(await openFilesUnder(dir)).toBe(0)
    // an aborted read is an AbortError (blockstore-fs made every failure of a read NotFoundError); a missing block is
    // not found
    const ctl = new AbortController()
    ctl.abort()
    await expect(drain(store.get(cid, { signal: ctl.signal }))).rejects.toMatchObject({ name: 'AbortError' })
    const missing = CID.createV1(raw.code, await sha256.digest(patternBytes(10)))
    await expect(drain(store.get(missing))).rejects.toMatchObject({ name: 'NotFoundError' })
  })
})
