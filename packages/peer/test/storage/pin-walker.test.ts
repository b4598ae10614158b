import * as dagPb from '@ipld/dag-pb'
import { CID } from 'multiformats/cid'
import * as raw from 'multiformats/codecs/raw'
import { sha256 } from 'multiformats/hashes/sha2'
import { afterEach, describe, expect, it } from 'vitest'
import { createNode } from '../../src/node/index.js'
import { pinWalker } from '../../src/storage/pin-walker.js'
import type { JobmeshNode } from '../../src/node/index.js'
import type { GraphNode } from '@helia/interface'

let node: JobmeshNode | undefined

afterEach(async () => {
  await node?.stop()
  node = undefined
})

/** A root linking `leaves` twice each (two names per leaf), on a fresh node's blockstore. */
async function twiceLinked (n: JobmeshNode, leaves: number): Promise<{ root: CID, leaves: CID[] }> {
  const put = async (bytes: Uint8Array, code: number): Promise<CID> => {
    const cid = CID.createV1(code, await sha256.digest(bytes))
    await n.helia.blockstore.put(cid, bytes)
    return cid
  }
  const cids = await Promise.all(Array.from({ length: leaves }, async (_, i) => put(new TextEncoder().encode(`leaf ${i}`), raw.code)))
  const links = cids.flatMap((Hash, i) => [{ Hash, Name: `${100 + i}a` }, { Hash, Name: `${100 + i}b` }])
  return { root: await put(dagPb.encode({ Links: links }), dagPb.code), leaves: cids }
}

async function walkAll (n: JobmeshNode, root: CID, options: { depth?: number, signal?: AbortSignal } = {}): Promise<GraphNode[]> {
  const out: GraphNode[] = []
  const walker = pinWalker()({ blockstore: n.helia.blockstore, getCodec: n.helia.getCodec })
  for await (const visited of walker.walk(root, options)) out.push(visited)
  return out
}

describe('the pin walker', () => {
  it('visits the root, then each block once, depth first in link order, with its depth and path', async () => {
    node = await createNode()
    const { root, leaves } = await twiceLinked(node, 3)
    const visited = await walkAll(node, root)
    expect(visited.map(v => v.block.cid.toString())).toEqual([root, ...leaves].map(String))
    expect(visited.map(v => v.depth)).toEqual([0, 1, 1, 1])
    expect(visited[2].path.map(String)).toEqual([root, leaves[1]].map(String))
  })

  it('stops at a depth bound, and an aborted walk throws to its caller', async () => {
    node = await createNode()
    const { root } = await twiceLinked(node, 2)
    expect((await walkAll(node, root, { depth: 0 })).map(v => v.block.cid.toString())).toEqual([root.toString()])
    const ctl = new AbortController()
    ctl.abort()
    await expect(walkAll(node, root, { signal: ctl.signal })).rejects.toMatchObject({ name: 'AbortError' })
  })
})
