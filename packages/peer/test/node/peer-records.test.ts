import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LevelDatastore } from 'datastore-level'
import { Key } from 'interface-datastore'
import { afterEach, describe, expect, it } from 'vitest'
import { createNode } from '../../src/node/index.js'
import { peerRecords } from '../../src/node/peer-records.js'
import type { JobmeshNode } from '../../src/node/index.js'

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s)
const text = (b: Uint8Array): string => new TextDecoder().decode(b)

async function all<T> (source: AsyncIterable<T> | Iterable<T>): Promise<T[]> {
  const out: T[] = []
  for await (const x of source) out.push(x)
  return out
}

describe('peer records in memory in front of LevelDB', () => {
  const dirs: string[] = []
  const open: Array<{ close: () => Promise<void> }> = []
  const nodes: JobmeshNode[] = []

  afterEach(async () => {
    for (const n of nodes.splice(0)) await n.stop()
    for (const s of open.splice(0)) await s.close()
    for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true })
  })

  async function level (): Promise<LevelDatastore> {
    const dir = await mkdtemp(join(tmpdir(), 'jobmesh-records-'))
    dirs.push(dir)
    const store = new LevelDatastore(join(dir, 'datastore'))
    await store.open()
    open.push(store)
    return store
  }

  it('keeps /peers/ records in memory until a flush, every other key goes straight to LevelDB', async () => {
    const durable = await level()
    await durable.put(new Key('/peers/old'), bytes('stale'))
    await durable.put(new Key('/peers/gone'), bytes('x'))
    const store = await peerRecords(durable, { flushMs: 3_600_000 })
    // records on disk at the start are read
    expect(text(await store.get(new Key('/peers/old')))).toBe('stale')

    await store.put(new Key('/peers/old'), bytes('fresh'))
    await store.put(new Key('/peers/new'), bytes('n'))
    await store.delete(new Key('/peers/gone'))
    await store.put(new Key('/pin/a'), bytes('pinned'))
    expect(text(await store.get(new Key('/peers/old')))).toBe('fresh')
    expect(await store.has(new Key('/peers/gone'))).toBe(false)
    expect(text(await durable.get(new Key('/peers/old')))).toBe('stale')
    expect(await durable.has(new Key('/peers/new'))).toBe(false)
    expect(text(await durable.get(new Key('/pin/a')))).toBe('pinned')

    // a query over both namespaces sees each key once, with the value in memory
    const pairs = await all(store.query({}))
    expect(pairs.map(p => `${p.key.toString()}=${text(p.value)}`).sort()).toEqual(['/peers/new=n', '/peers/old=fresh', '/pin/a=pinned'])
    expect((await all(store.queryKeys({ prefix: '/peers/' }))).map(String).sort()).toEqual(['/peers/new', '/peers/old'])
    expect((await all(store.query({ prefix: '/pin' }))).map(p => p.key.toString())).toEqual(['/pin/a'])

    await store.flush()
    expect(text(await durable.get(new Key('/peers/old')))).toBe('fresh')
    expect(text(await durable.get(new Key('/peers/new')))).toBe('n')
    expect(await durable.has(new Key('/peers/gone'))).toBe(false)
    await store.close()
  })

  it('a batch commits the other keys in LevelDB\'s own batch and applies the records in memory; the stop writes them', async () => {
    const durable = await level()
    const store = await peerRecords(durable, { flushMs: 3_600_000 })
    const batch = store.batch()
    batch.put(new Key('/peers/p'), bytes('1'))
    batch.put(new Key('/crdt/u'), bytes('2'))
    batch.delete(new Key('/peers/none'))
    await batch.commit()
    expect(text(await store.get(new Key('/peers/p')))).toBe('1')
    expect(text(await durable.get(new Key('/crdt/u')))).toBe('2')
    expect(await durable.has(new Key('/peers/p'))).toBe(false)
    await store.close()
    expect(text(await durable.get(new Key('/peers/p')))).toBe('1')
  })

  it('a restarted node still knows the addresses of a peer it met (written at its stop)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'jobmesh-records-node-'))
    dirs.push(dir)
    const other = await createNode({})
    nodes.push(other)
    const first = await createNode({ dataDir: dir })
    nodes.push(first)
    await first.libp2p.dial(other.libp2p.getMultiaddrs()[0])
    // stopped here (not by afterEach): the stop writes the records
    await first.stop()
    nodes.splice(nodes.indexOf(first), 1)
    const again = await createNode({ dataDir: dir })
    nodes.push(again)
    const known = await again.libp2p.peerStore.get(other.peerId)
    expect(known.addresses.map(a => a.multiaddr.toString())).toContain(other.libp2p.getMultiaddrs()[0].toString().split('/p2p/')[0])
  })
})
