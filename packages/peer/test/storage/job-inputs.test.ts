import { patternBytes } from '@jobmesh/testkit'
import { afterEach, describe, expect, it } from 'vitest'
import { createNode } from '../../src/node/index.js'
import { encodeJobSpec, parseJobSpec } from '../../src/protocol/index.js'
import { createContentStore, jobInputs, rawBlockCid } from '../../src/storage/index.js'
import type { JobmeshNode } from '../../src/node/index.js'
import type { JobSpec } from '../../src/protocol/index.js'
import type { ContentStore, JobContent, PinOptions } from '../../src/storage/index.js'

function spec (codeUri: string, dataUri: string): JobSpec {
  return parseJobSpec({
    version: 1, creator: '0x00000000000000000000000000000000000000a1', codeUri, dataUri, blockSize: 1000, blockCount: 300,
    slicing: { macroJobs: 3, microJobsPerMacro: 10, blocksPerMicro: 10 }, seed: '7', requirements: { minVramGb: 0 },
    price: '1000000000000000', estimate: { secondsPerMicroJob: 1 }, verifiers: 3, deadline: 1_900_000_000_000
  })
}

function job (codeUri = 'ipfs://bafkreiakkt5tbc3ms2jfpyxuecidfig4xeli7w7neduoxeyhgctw3d6b6a', dataUri = 'ipfs://bafkreihj3menxrfhskubdpl56bw5a3pjwztvoih63d4bedaoqltwg3b3be'): JobContent {
  const s = spec(codeUri, dataUri)
  return { jobId: '0x' + 'ab'.repeat(32), specCid: rawBlockCid(encodeJobSpec(s)).toString(), spec: s }
}

/** The pins a store was asked for, by URI. */
function counting (store: Pick<ContentStore, 'pin' | 'addRaw'>): { store: Pick<ContentStore, 'pin' | 'addRaw'>, pins: string[] } {
  const pins: string[] = []
  return {
    pins,
    store: {
      addRaw: async (bytes, options) => await store.addRaw(bytes, options),
      pin: async (uri, options) => { pins.push(uri); return await store.pin(uri, options) }
    }
  }
}

/**
 * A store whose pins wait at a gate: `open` lets every pin through from then on, `fail` ends those waiting with `err`
 * (the next ones wait again); a pin whose signal aborts ends with AbortError, unless the store is `deaf` to signals (a
 * pin slow to notice its signal) (pure logic: the waiting and retrying of `hold`; the real pins are in the first test).
 */
function gatedStore (deaf = false): { store: Pick<ContentStore, 'pin' | 'addRaw'>, pins: string[], open(): void, fail(err: Error): void } {
  const pins: string[] = []
  let gate = Promise.withResolvers<void>()
  return {
    pins,
    open: () => { gate.resolve() },
    fail: (err) => {
      gate.reject(err)
      gate = Promise.withResolvers<void>()
    },
    store: {
      addRaw: async (bytes) => rawBlockCid(bytes).toString(),
      pin: async (uri: string, options: PinOptions = {}) => {
        pins.push(uri)
        const aborted = new Promise<never>((_resolve, reject) => {
          const abort = (): void => { reject(Object.assign(new Error('aborted'), { name: 'AbortError' })) }
          if (deaf) return
          if (options.signal?.aborted === true) abort()
          options.signal?.addEventListener('abort', abort, { once: true })
        })
        await Promise.race([gate.promise, aborted])
        return true
      }
    }
  }
}

describe('job inputs: one pin of a job\'s inputs at a time', () => {
  const nodes: JobmeshNode[] = []
  afterEach(async () => { await Promise.all(nodes.splice(0).map(async n => { await n.stop() })) })

  it('two holds of a job at once (processor and replication) fetch and pin its code and data once; both get the URIs', async () => {
    const dapp = await createNode({ listen: ['/ip4/127.0.0.1/tcp/0'] })
    const peer = await createNode({ listen: ['/ip4/127.0.0.1/tcp/0'] })
    nodes.push(dapp, peer)
    const source = createContentStore({ helia: dapp.helia })
    const codeUri = `ipfs://${await source.addBytes(patternBytes(3000, 1))}`
    const dataUri = `ipfs://${await source.addBytes(patternBytes(300_000, 2))}`
    await peer.libp2p.dial(dapp.libp2p.getMultiaddrs()[0], { signal: AbortSignal.timeout(10_000) })
    const { store, pins } = counting(createContentStore({ helia: peer.helia }, { fetchTimeoutMs: 10_000 }))
    const inputs = jobInputs({ store })
    const j = job(codeUri, dataUri)

    const [a, b] = await Promise.all([inputs.hold(j), inputs.hold(j)])
    expect(a).toEqual([`ipfs://${j.specCid}`, codeUri, dataUri])
    expect(b).toEqual(a)
    expect(pins).toEqual([codeUri, dataUri])
    // held: the pins are done, so a later hold pins again (each finds the pin record and returns)
    expect(await inputs.hold(j)).toEqual(a)
    expect(pins).toEqual([codeUri, dataUri, codeUri, dataUri])
  })

  it('a second caller whose signal aborts stops waiting; the pin under way goes on for the first', async () => {
    const { store, pins, open } = gatedStore()
    const inputs = jobInputs({ store })
    const first = inputs.hold(job())
    const controller = new AbortController()
    const second = inputs.hold(job(), { signal: controller.signal })
    controller.abort()
    await expect(second).rejects.toMatchObject({ name: 'AbortError', message: `holding the inputs of job ${job().jobId}: stopped while another holding of them ran` })
    open()
    expect(await first).toHaveLength(3)
    expect(pins).toHaveLength(2)
  })

  it('when the first caller\'s signal ends the pin, a caller waiting on it pins the inputs again under its own bounds', async () => {
    const { store, pins, open } = gatedStore()
    const inputs = jobInputs({ store })
    const controller = new AbortController()
    const first = inputs.hold(job(), { signal: controller.signal })
    const second = inputs.hold(job())
    controller.abort()
    await expect(first).rejects.toMatchObject({ name: 'AbortError' })
    open()
    expect(await second).toHaveLength(3)
    // the first caller's code, then the second caller's own pin of its code and data
    expect(pins).toHaveLength(3)
  })

  it('a caller that comes once the pin under way was stopped by its caller pins at once, not after that pin ends', async () => {
    // the stopped pin has not noticed its signal yet (it waits at the gate): the new caller starts its own
    const { store, pins, open } = gatedStore(true)
    const inputs = jobInputs({ store })
    const controller = new AbortController()
    const first = inputs.hold(job(), { signal: controller.signal })
    await expect.poll(() => pins.length).toBe(1)
    controller.abort()
    const second = inputs.hold(job())
    await expect.poll(() => pins.length).toBe(2)
    open()
    expect(await second).toHaveLength(3)
    await first
  })

  it('a pin that fails for its content fails every caller waiting on it, and the next hold tries again', async () => {
    const { store, pins, fail, open } = gatedStore()
    const inputs = jobInputs({ store })
    const both = [inputs.hold(job()), inputs.hold(job())]
    await expect.poll(() => pins.length).toBe(1)
    fail(Object.assign(new Error('too large'), { name: 'ContentTooLargeError' }))
    for (const p of both) await expect(p).rejects.toMatchObject({ name: 'ContentTooLargeError' })
    expect(pins).toHaveLength(1)
    const again = inputs.hold(job())
    open()
    expect(await again).toHaveLength(3)
    expect(pins).toHaveLength(3)
  })
})
