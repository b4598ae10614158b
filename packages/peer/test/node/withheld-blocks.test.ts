import { MemoryBlockstore } from 'blockstore-core/memory'
import { CID } from 'multiformats/cid'
import * as raw from 'multiformats/codecs/raw'
import { sha256 } from 'multiformats/hashes/sha2'
import { describe, expect, it } from 'vitest'
import { collect } from '../../src/storage/collect.js'
import { withheldBlocks } from '../../src/node/withheld-blocks.js'

async function block (text: string): Promise<{ cid: CID, bytes: Uint8Array }> {
  const bytes = new TextEncoder().encode(text)
  return { cid: CID.createV1(raw.code, await sha256.digest(bytes)), bytes }
}

/** A blockstore holding `blocks`, under the wrapper. */
async function storeOf (...blocks: Array<{ cid: CID, bytes: Uint8Array }>): Promise<ReturnType<typeof withheldBlocks>> {
  const inner = new MemoryBlockstore()
  for (const b of blocks) await inner.put(b.cid, b.bytes)
  return withheldBlocks(inner)
}

/** Whether `p` settled after the pending callbacks ran (a read waiting on a withheld block has not). */
async function settled (p: Promise<unknown>): Promise<boolean> {
  let done = false
  void p.then(() => { done = true }, () => { done = true })
  for (let i = 0; i < 20; i++) await Promise.resolve()
  await new Promise(resolve => setImmediate(resolve))
  return done
}

describe('withheldBlocks', () => {
  it('a read of a withheld block waits for its release; other blocks and has() are not held back', async () => {
    const a = await block('a')
    const b = await block('b')
    const { blockstore, withhold } = await storeOf(a, b)
    const release = withhold([a.cid])
    const read = collect(blockstore.get(a.cid), 100, 'a')
    expect(await settled(read)).toBe(false)
    expect(await blockstore.has(a.cid)).toBe(true)
    expect(await collect(blockstore.get(b.cid), 100, 'b')).toEqual(b.bytes)
    release()
    expect(await read).toEqual(a.bytes)
  })

  it('a block withheld twice at once is read only after both releases; a release called twice counts once', async () => {
    const a = await block('twice')
    const { blockstore, withhold } = await storeOf(a)
    const first = withhold([a.cid])
    const second = withhold([a.cid])
    const read = collect(blockstore.get(a.cid), 100, 'a')
    first()
    first()
    expect(await settled(read)).toBe(false)
    second()
    expect(await read).toEqual(a.bytes)
  })

  it('getMany waits at a withheld block; a waiting read ends with its signal', async () => {
    const a = await block('many-a')
    const b = await block('many-b')
    const { blockstore, withhold } = await storeOf(a, b)
    const release = withhold([b.cid])
    const seen: string[] = []
    const many = (async () => { for await (const pair of blockstore.getMany([a.cid, b.cid])) seen.push(pair.cid.toString()) })()
    expect(await settled(many)).toBe(false)
    expect(seen).toEqual([a.cid.toString()])
    const controller = new AbortController()
    const aborted = collect(blockstore.get(b.cid, { signal: controller.signal }), 100, 'b').catch((e: Error) => e)
    controller.abort(new Error('given up'))
    expect(((await aborted) as Error).message).toBe('given up')
    release()
    await many
    expect(seen).toEqual([a.cid.toString(), b.cid.toString()])
  })
})
