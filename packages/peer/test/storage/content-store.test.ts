import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { unixfs } from '@helia/unixfs'
import { patternBytes } from '@jobmesh/testkit'
import * as dagPb from '@ipld/dag-pb'
import { CID } from 'multiformats/cid'
import * as raw from 'multiformats/codecs/raw'
import { sha256 } from 'multiformats/hashes/sha2'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createNode } from '../../src/node/index.js'
import { createContentStore, rawOutputCid } from '../../src/storage/index.js'
import { isPublicAddress } from '../../src/storage/public-address.js'
import { walkWithin } from '../../src/storage/dag-bound.js'
import type { JobmeshNode } from '../../src/node/index.js'
import type { AddressInfo } from 'node:net'

async function drain (it: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of it) { /* walk */ }
}

async function rejectsWithName (p: Promise<unknown>, name: string): Promise<void> {
  await expect(p).rejects.toMatchObject({ name })
}

describe('content store: file://, http:// and bad URIs', () => {
  let dir: string
  let nodes: JobmeshNode[] = []

  beforeEach(async () => { dir = await mkdtemp(join(tmpdir(), 'jobmesh-storage-')) })
  afterEach(async () => {
    await Promise.all(nodes.map(async n => n.stop()))
    nodes = []
    await rm(dir, { recursive: true, force: true })
  })

  it('reads byte ranges of a local file, clamped to its size', async () => {
    const node = await createNode()
    nodes.push(node)
    const store = createContentStore({ helia: node.helia })
    const data = patternBytes(10_000)
    const path = join(dir, 'data.bin')
    await writeFile(path, data)
    const uri = pathToFileURL(path).href
    expect(await store.fetch(uri)).toEqual(data)
    expect(await store.fetch(uri, { offset: 1000, length: 2000 })).toEqual(data.subarray(1000, 3000))
    expect(await store.fetch(uri, { offset: 9000, length: 4000 })).toEqual(data.subarray(9000))
    expect((await store.fetch(uri, { offset: 20_000, length: 10 })).byteLength).toBe(0)
    await rejectsWithName(store.fetch(uri, { maxBytes: 100 }), 'ContentTooLargeError')
    await rejectsWithName(store.fetch(pathToFileURL(join(dir, 'missing')).href), 'ContentNotFoundError')
    await rejectsWithName(store.fetch(uri, { offset: -1 }), 'InvalidRangeError')
  })

  it('rejects unsupported and malformed URIs', async () => {
    const node = await createNode()
    nodes.push(node)
    const store = createContentStore({ helia: node.helia })
    await rejectsWithName(store.fetch('ftp://example.org/x'), 'UnsupportedUriError')
    await rejectsWithName(store.fetch('ipfs://not-a-cid'), 'UnsupportedUriError')
    await rejectsWithName(store.fetch('nonsense'), 'UnsupportedUriError')
    await rejectsWithName(store.fetch(''), 'UnsupportedUriError')
  })

  it('reads ranges over http with a Range header, and maps 404', async () => {
    const node = await createNode()
    nodes.push(node)
    const store = createContentStore({ helia: node.helia })
    const data = patternBytes(5000)
    const ranges: string[] = []
    const server = createServer((req, res) => {
      if (req.url !== '/data') { res.statusCode = 404; res.end(); return }
      const m = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '')
      ranges.push(req.headers.range ?? '')
      if (m == null) { res.end(Buffer.from(data)); return }
      const start = Number(m[1])
      const end = m[2] === '' ? data.length - 1 : Math.min(Number(m[2]), data.length - 1)
      res.statusCode = 206
      res.setHeader('content-range', `bytes ${start}-${end}/${data.length}`)
      res.end(Buffer.from(data.subarray(start, end + 1)))
    })
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      expect(await store.fetch(`${base}/data`, { offset: 100, length: 50 })).toEqual(data.subarray(100, 150))
      expect(ranges).toContain('bytes=100-149')
      expect(await store.fetch(`${base}/data`)).toEqual(data)
      await rejectsWithName(store.fetch(`${base}/missing`), 'ContentNotFoundError')
      await rejectsWithName(store.fetch('http://127.0.0.1:1/nothing-listens'), 'ContentFetchError')

      // a job's URIs (fromNetwork): not this machine's files, not plain http, not this machine or a private network
      // over https, whether by address or by a name that resolves to one: refused before any connection
      const port = (server.address() as AddressInfo).port
      const served = ranges.length
      const file = join(tmpdir(), 'jobmesh-not-for-jobs')
      await writeFile(file, 'secret')
      for (const uri of [pathToFileURL(file).href, `${base}/data`, `https://127.0.0.1:${port}/data`, `https://localhost:${port}/data`,
        `https://[::1]:${port}/data`, 'https://10.0.0.1/data', 'https://169.254.169.254/latest/meta-data', 'https://[::ffff:127.0.0.1]/data']) {
        await rejectsWithName(store.fetch(uri, { fromNetwork: true, timeoutMs: 5_000 }), 'ForbiddenUriError')
      }
      expect(ranges).toHaveLength(served)
      await rm(file, { force: true })
      // the same store still reads them for a local caller
      expect(await store.fetch(`${base}/data`, { offset: 0, length: 10 })).toEqual(data.subarray(0, 10))
    } finally {
      server.closeAllConnections()
      await new Promise<void>(resolve => server.close(() => { resolve() }))
    }
  })
})

describe('content store: ipfs:// between two helia nodes', () => {
  let nodes: JobmeshNode[] = []
  const dirs: string[] = []
  afterEach(async () => {
    await Promise.all(nodes.map(async n => n.stop()))
    nodes = []
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true })
  })

  it('adds and pins on one node, range-reads on another over bitswap', async () => {
    const a = await createNode()
    const b = await createNode()
    nodes.push(a, b)
    await b.libp2p.dial(a.libp2p.getMultiaddrs()[0], { signal: AbortSignal.timeout(10_000) })
    const storeA = createContentStore({ helia: a.helia })
    const storeB = createContentStore({ helia: b.helia }, { fetchTimeoutMs: 20_000 })
    // 3 MiB: several UnixFS leaves, so a range read touches only some of them
    const data = patternBytes(3 * 1024 * 1024)
    const cid = await storeA.addBytes(data)
    expect(await a.helia.pins.isPinned(CID.parse(cid))).toBe(true)

    const offset = 1024 * 1024 + 17
    const part = await storeB.fetch(`ipfs://${cid}`, { offset, length: 4096, signal: AbortSignal.timeout(20_000) })
    expect(part).toEqual(data.subarray(offset, offset + 4096))
    const tail = await storeB.fetch(`ipfs://${cid}`, { offset: data.length - 10, length: 100 })
    expect(tail).toEqual(data.subarray(data.length - 10))
    // past the end: no bytes, as of a file or over HTTP (it was a ContentFetchError, which the peers took for the
    // network's fault: a job whose --block-count outran its data failed its last MicroJobs as fetch errors, never for certain)
    expect((await storeB.fetch(`ipfs://${cid}`, { offset: data.length, length: 10 })).byteLength).toBe(0)
    expect((await storeB.fetch(`ipfs://${cid}`, { offset: data.length + 64, length: 64 })).byteLength).toBe(0)
    const raw = await storeA.addRaw(data.subarray(0, 100))
    expect((await storeB.fetch(`ipfs://${raw}`, { offset: 164, length: 64, signal: AbortSignal.timeout(20_000) })).byteLength).toBe(0)
    await rejectsWithName(storeB.fetch(`ipfs://${cid}`, { maxBytes: 1000 }), 'ContentTooLargeError')
  })

  it('many outputs stored at once under one signal make Node warn of no listener leak (helia listens on it per pin)', async () => {
    const a = await createNode()
    nodes.push(a)
    const store = createContentStore({ helia: a.helia })
    const warnings: Error[] = []
    const onWarning = (w: Error): void => { if (w.name === 'MaxListenersExceededWarning') warnings.push(w) }
    process.on('warning', onWarning)
    try {
      // a job's outputs, stored under the job's one signal as a finalizer stores them
      const signal = new AbortController().signal
      const cids = await Promise.all(Array.from({ length: 24 }, async (_, i) => await store.addOutput(new TextEncoder().encode(`output ${i}`), { signal })))
      expect(new Set(cids).size).toBe(24)
      // a warning is emitted on the next tick
      await new Promise(resolve => setImmediate(resolve))
    } finally {
      process.off('warning', onWarning)
    }
    expect(warnings.map(w => w.message)).toEqual([])
  })

  it('peers pinning one DAG at once make Node warn of no listener leak (bitswap listens per peer that wants a block)', async () => {
    // a job's inputs, pinned by its peers as they learn it: each stores the blocks the others want from it too
    nodes.push(...await Promise.all(Array.from({ length: 5 }, async () => await createNode())))
    for (let i = 0; i < nodes.length; i++) {
      for (let j = i + 1; j < nodes.length; j++) await nodes[j].libp2p.dial(nodes[i].libp2p.getMultiaddrs()[0], { signal: AbortSignal.timeout(10_000) })
    }
    const cid = await createContentStore({ helia: nodes[0].helia }).addBytes(patternBytes(4 * 1024 * 1024))
    const warnings: Error[] = []
    const onWarning = (w: Error): void => { if (w.name === 'MaxListenersExceededWarning') warnings.push(w) }
    process.on('warning', onWarning)
    try {
      const pinned = await Promise.all(nodes.slice(1).map(async n =>
        await createContentStore({ helia: n.helia }, { fetchTimeoutMs: 30_000 }).pin(`ipfs://${cid}`, { maxBytes: 8 * 1024 * 1024 })))
      expect(pinned).toEqual([true, true, true, true])
      // a warning is emitted on the next tick
      await new Promise(resolve => setImmediate(resolve))
    } finally {
      process.off('warning', onWarning)
    }
    expect(warnings.map(w => w.message)).toEqual([])
  })

  it('pins within a byte bound, and nothing of a DAG larger than the bound', async () => {
    const a = await createNode()
    const b = await createNode()
    nodes.push(a, b)
    await b.libp2p.dial(a.libp2p.getMultiaddrs()[0], { signal: AbortSignal.timeout(10_000) })
    const storeB = createContentStore({ helia: b.helia }, { fetchTimeoutMs: 20_000 })
    const cid = await createContentStore({ helia: a.helia }).addBytes(patternBytes(3 * 1024 * 1024))
    const root = CID.parse(cid)

    await rejectsWithName(storeB.pin(`ipfs://${cid}`, { maxBytes: 1024 * 1024 }), 'ContentTooLargeError')
    expect(await b.helia.pins.isPinned(root)).toBe(false)
    expect(await storeB.pin(`ipfs://${cid}`, { maxBytes: 4 * 1024 * 1024 })).toBe(true)
    expect(await b.helia.pins.isPinned(root)).toBe(true)
    // pinned: asked again, nothing is fetched or counted (a bound it would not fit now changes nothing)
    expect(await storeB.pin(`ipfs://${cid}`, { maxBytes: 1 })).toBe(true)
  })

  it('a pin of ipfs://<dir>/<path> holds what the path names, within the bound, not the whole directory', async () => {
    const a = await createNode()
    const b = await createNode()
    nodes.push(a, b)
    await b.libp2p.dial(a.libp2p.getMultiaddrs()[0], { signal: AbortSignal.timeout(10_000) })
    const fs = unixfs(a.helia)
    const small = await fs.addBytes(patternBytes(10_000))
    const big = await fs.addBytes(patternBytes(3 * 1024 * 1024))
    const dir = await fs.cp(big, await fs.cp(small, await fs.addDirectory(), 'small.bin'), 'big.bin')
    const storeB = createContentStore({ helia: b.helia }, { fetchTimeoutMs: 20_000 })

    expect(await storeB.pin(`ipfs://${dir.toString()}/small.bin`, { maxBytes: 64 * 1024 })).toBe(true)
    expect(await b.helia.pins.isPinned(small)).toBe(true)
    expect(await b.helia.pins.isPinned(dir)).toBe(false)
    expect(await b.helia.blockstore.has(big)).toBe(false)
    await rejectsWithName(storeB.pin(`ipfs://${dir.toString()}`, { maxBytes: 64 * 1024 }), 'ContentTooLargeError')
    await rejectsWithName(storeB.pin(`ipfs://${dir.toString()}/none.bin`, { maxBytes: 64 * 1024 }), 'ContentNotFoundError')
  })

  it('a bounded pin of a DAG that links one block over and over ends at the bound, and its walk with it', async () => {
    const a = await createNode()
    nodes.push(a)
    // the walk's reads, counted, and those not yet finished; each takes a timer's turn, as a slow disk or a peer
    // would, so that reads are under way when the bound is reached
    let reads = 0
    let reading = 0
    const blockstore = new Proxy(a.helia.blockstore, {
      get (target, key, receiver) {
        if (key !== 'get') return Reflect.get(target, key, receiver)
        return async function * (...args: Parameters<typeof target.get>) {
          reads++
          reading++
          try {
            await new Promise(resolve => setTimeout(resolve, 1))
            yield * target.get(...args)
          } finally { reading-- }
        }
      }
    })
    const store = createContentStore({ helia: { blockstore, pins: a.helia.pins, getCodec: a.helia.getCodec } })
    // 4 levels of 64 links to the same child over a 1 KiB leaf: 4 blocks stored, 64^4 leaves for a walk to reach
    const put = async (node: dagPb.PBNode): Promise<CID> => {
      const bytes = dagPb.encode(node)
      const cid = CID.createV1(dagPb.code, await sha256.digest(bytes))
      await a.helia.blockstore.put(cid, bytes)
      return cid
    }
    let node = await put({ Data: patternBytes(1024), Links: [] })
    for (let level = 0; level < 4; level++) {
      const child = node
      node = await put({ Links: Array.from({ length: 64 }, (_, i) => ({ Hash: child, Name: String(100 + i) })) })
    }
    await rejectsWithName(store.pin(`ipfs://${node.toString()}`, { maxBytes: 1024 * 1024, timeoutMs: 20_000 }), 'ContentTooLargeError')
    expect(await a.helia.pins.isPinned(node)).toBe(false)
    // ~1 000 leaves of 1 KiB reached the bound; the refusal comes once every read it started has ended
    expect(reads).toBeLessThan(1_200)
    expect(reading).toBe(0)
  })

  it('a bounded pin that keeps fetching outlives its timeout; one whose blocks stop coming ends when nothing more came for it', async () => {
    const a = await createNode()
    nodes.push(a)
    // a root over 40 leaves of 16 KiB; each read takes 100 ms, as from a slow peer, and those past `served` never come
    const leaves = await Promise.all(Array.from({ length: 40 }, async (_, i) => {
      const cid = CID.createV1(raw.code, await sha256.digest(patternBytes(16 * 1024, i)))
      await a.helia.blockstore.put(cid, patternBytes(16 * 1024, i))
      return cid
    }))
    const rootBytes = dagPb.encode({ Links: leaves.map((Hash, i) => ({ Hash, Name: String(100 + i), Tsize: 16 * 1024 })) })
    const root = CID.createV1(dagPb.code, await sha256.digest(rootBytes))
    await a.helia.blockstore.put(root, rootBytes)
    let served = Infinity
    let reads = 0
    const blockstore = new Proxy(a.helia.blockstore, {
      get (target, key, receiver) {
        if (key !== 'get') return Reflect.get(target, key, receiver)
        return async function * (...args: Parameters<typeof target.get>) {
          const signal = args[1]?.signal
          if (++reads > served) {
            await new Promise((_resolve, reject) => { signal?.addEventListener('abort', () => { reject(signal.reason) }, { once: true }) })
          }
          await new Promise(resolve => setTimeout(resolve, 100))
          yield * target.get(...args)
        }
      }
    })
    // each 16 KiB block fetched moves the pin's timeout 100 ms later
    const store = createContentStore({ helia: { blockstore, pins: a.helia.pins, getCodec: a.helia.getCodec } }, { pinBytesPerSecond: 160 * 1024 })
    const uri = `ipfs://${root.toString()}`

    // 41 reads, 8 at once: at least 6 reads in a row, 600 ms, against a timeout of 500 ms
    let started = performance.now()
    expect(await store.pin(uri, { maxBytes: 1024 * 1024, timeoutMs: 500 })).toBe(true)
    expect(performance.now() - started).toBeGreaterThan(500)
    expect(await a.helia.pins.isPinned(root)).toBe(true)
    await drain(a.helia.pins.rm(root))

    // the root and 8 leaves come (earning 0.8 s), then nothing: cut 500 ms after the last of them
    reads = 0
    served = 9
    started = performance.now()
    const cut = await store.pin(uri, { maxBytes: 1024 * 1024, timeoutMs: 500 }).catch((err: Error) => err)
    expect(cut).toMatchObject({ name: 'ContentTimeoutError' })
    expect((cut as Error).message).toMatch(/got nothing more for 500 ms$/)
    expect(performance.now() - started).toBeGreaterThan(500)
    expect(await a.helia.pins.isPinned(root)).toBe(false)
  })

  it('a block a DAG links many times is its pin\'s progress once (it is counted against the bound at each link)', async () => {
    const a = await createNode()
    nodes.push(a)
    const leafBytes = patternBytes(1024)
    const leaf = CID.createV1(raw.code, await sha256.digest(leafBytes))
    await a.helia.blockstore.put(leaf, leafBytes)
    const rootBytes = dagPb.encode({ Links: Array.from({ length: 40 }, (_, i) => ({ Hash: leaf, Name: String(100 + i), Tsize: 1024 })) })
    const root = CID.createV1(dagPb.code, await sha256.digest(rootBytes))
    await a.helia.blockstore.put(root, rootBytes)
    const progress: number[] = []
    const walked = await walkWithin(a.helia, root, { maxBytes: 1024 * 1024, signal: AbortSignal.timeout(10_000), onBlock: bytes => progress.push(bytes) })
    expect(walked).toBe(rootBytes.byteLength + 40 * 1024)
    expect(progress.sort((x, y) => x - y)).toEqual([1024, rootBytes.byteLength].sort((x, y) => x - y))
  })

  it('stores small outputs as raw blocks whose CID follows from the output hash', async () => {
    const a = await createNode()
    nodes.push(a)
    const store = createContentStore({ helia: a.helia })
    const output = new TextEncoder().encode('hello output')
    const cid = await store.addOutput(output)
    const { createHash } = await import('node:crypto')
    expect(cid).toBe(rawOutputCid('0x' + createHash('sha256').update(output).digest('hex')))
    expect(await store.fetch(`ipfs://${cid}`)).toEqual(output)
  })

  it('fails with ContentTimeoutError when no peer has the content', async () => {
    const a = await createNode()
    nodes.push(a)
    const store = createContentStore({ helia: a.helia })
    const missing = rawOutputCid('0x' + '11'.repeat(32))
    await rejectsWithName(store.fetch(`ipfs://${missing}`, { timeoutMs: 500 }), 'ContentTimeoutError')
    const ctl = new AbortController()
    const p = store.fetch(`ipfs://${missing}`, { signal: ctl.signal })
    ctl.abort()
    await rejectsWithName(p, 'AbortError')
  })

  it('ends a pin cut by its timeout with ContentTimeoutError: no unhandled rejection, no pin of part of a DAG', async () => {
    // helia's own pin walk, aborted while its caller handles a block, throws the abort into a generator nobody awaits
    // (a rejection left unhandled: a peer process died of it when a job's inputs took longer than the pin's timeout)
    // and the walk then ends as if it were complete. On disk, as a peer keeps its blocks: the walk's caller waits on
    // the datastore between blocks
    const dataDir = await mkdtemp(join(tmpdir(), 'jobmesh-pin-'))
    dirs.push(dataDir)
    const a = await createNode({ dataDir })
    nodes.push(a)
    const store = createContentStore({ helia: a.helia })
    const put = async (bytes: Uint8Array, code: number): Promise<CID> => {
      const cid = CID.createV1(code, await sha256.digest(bytes))
      await a.helia.blockstore.put(cid, bytes)
      return cid
    }
    const branches: CID[] = []
    for (let b = 0; b < 40; b++) {
      const leaves = await Promise.all(Array.from({ length: 100 }, async (_, i) => put(new TextEncoder().encode(`leaf ${b}.${i}`), raw.code)))
      branches.push(await put(dagPb.encode({ Links: leaves.map((Hash, i) => ({ Hash, Name: String(100 + i) })) }), dagPb.code))
    }
    const root = await put(dagPb.encode({ Links: branches.map((Hash, i) => ({ Hash, Name: String(100 + i) })) }), dagPb.code)
    const uri = `ipfs://${root.toString()}`
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown): void => { unhandled.push(reason) }
    process.on('unhandledRejection', onUnhandled)
    let cut = 0
    try {
      for (const timeoutMs of [10, 20, 40, 80, 160, 320]) {
        const pinned = await store.pin(uri, { timeoutMs }).catch((err: Error) => err)
        if (pinned === true) {
          await drain(a.helia.pins.rm(root))
          continue
        }
        expect(pinned).toMatchObject({ name: 'ContentTimeoutError' })
        cut++
        await expect(a.helia.pins.get(root)).rejects.toMatchObject({ name: 'NotFoundError' })
      }
      // Node reports a rejection left unhandled once the microtasks of the turn that made it have run
      for (let turn = 0; turn < 5; turn++) await new Promise(resolve => setImmediate(resolve))
    } finally {
      process.off('unhandledRejection', onUnhandled)
    }
    expect(cut).toBeGreaterThan(0)
    expect(unhandled).toEqual([])
  })
})

describe('which addresses a job\'s https:// content may come from', () => {
  it('public ones only: not loopback, private, shared, link-local, multicast or their IPv4-mapped forms', () => {
    for (const ip of ['127.0.0.1', '10.1.2.3', '172.20.0.1', '192.168.1.1', '100.64.0.1', '169.254.169.254', '0.0.0.0', '224.0.0.1',
      '::1', '::', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '::ffff:7f00:1', 'not-an-ip']) {
      expect(isPublicAddress(ip), ip).toBe(false)
    }
    for (const ip of ['8.8.8.8', '1.1.1.1', '93.184.216.34', '2606:4700::1111', '::ffff:8.8.8.8']) expect(isPublicAddress(ip), ip).toBe(true)
  })
})
