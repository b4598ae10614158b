import { registerNodes, startChain } from '@jobmesh/testkit/anvil'
import { waitFor } from '@jobmesh/testkit'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createModelHoldings } from '../../src/models/index.js'
import { ContentTooLargeError } from '../../src/storage/index.js'
import type { ChainClient } from '@jobmesh/contracts'
import type { TestChain } from '@jobmesh/testkit/anvil'
import type { ModelHoldings } from '../../src/models/index.js'

const STAKE = 10n ** 17n

/** `chain` whose first `failures` model records fail as an unreachable RPC would (a test seam). */
function announceFailing (chain: ChainClient, failures: number): ChainClient & { tries: () => number } {
  let tries = 0
  return new Proxy(chain, {
    get (target, key) {
      if (key === 'tries') return () => tries
      if (key === 'announceModel') {
        return async (...args: Parameters<ChainClient['announceModel']>) => {
          if (++tries <= failures) throw new Error('connect ECONNREFUSED 127.0.0.1:8545')
          return await target.announceModel(...args)
        }
      }
      const value: unknown = Reflect.get(target, key)
      return typeof value === 'function' ? value.bind(target) : value
    }
  }) as ChainClient & { tries: () => number }
}

describe('model holdings', () => {
  it('an ipfs:// model of --model is held (job choice, jobmesh status) once fetched, not before; a fetch for a job without a chain says why', async () => {
    let release = (): void => {}
    const fetched = new Promise<void>(resolve => { release = resolve })
    const events: string[] = []
    const model = 'ipfs://bafkreiaw44yvxd7xickcjw2lapsmbtieemjg27slxrgwklzqwey4v6kxfy'
    const holdings = createModelHoldings({ store: { pin: async () => { await fetched } }, events: { push: e => { events.push(e.text) } } }, { models: [model, 'plain-label'] })
    try {
      holdings.start()
      await waitFor(() => holdings.held.includes('plain-label') ? true : undefined, { timeoutMs: 5_000, what: 'the plain label held' })
      expect(holdings.held).toEqual(['plain-label'])
      expect(holdings.models().map(m => m.modelId)).toEqual(['plain-label'])
      release()
      await waitFor(() => holdings.held.includes(model) ? true : undefined, { timeoutMs: 5_000, what: 'the fetched model held' })
      holdings.acquired({ jobId: `0x${'2'.repeat(64)}`, spec: { requirements: { minVramGb: 0, modelId: 'ipfs://bafyother' } } })
      expect(events.at(-1)).toBe(`fetched model ipfs://bafyother to run job 0x22222222: no chain tells this peer who holds it`)
    } finally {
      await holdings.stop()
    }
  })
})

describe('model holdings, a fetch that cannot succeed', () => {
  it('an ipfs:// model larger than a model may be is given up once, with why: not fetching, not held, the operator told', async () => {
    const events: Array<{ level: string, text: string }> = []
    const model = 'ipfs://bafkreiaw44yvxd7xickcjw2lapsmbtieemjg27slxrgwklzqwey4v6kxfy'
    let pins = 0
    const holdings = createModelHoldings({
      store: { pin: async () => { pins++; throw new ContentTooLargeError(`${model} is larger than 302039040 bytes`) } },
      events: { push: e => { events.push({ level: e.level, text: e.text }) } }
    }, { models: [model], retryMs: 1 })
    try {
      expect(holdings.fetching()).toEqual([model])
      holdings.start()
      await waitFor(() => holdings.givenUp().length > 0 ? true : undefined, { timeoutMs: 5_000, what: 'the fetch given up' })
      expect(holdings.givenUp()).toEqual([{ modelId: model, reason: `${model} is larger than 302039040 bytes` }])
      expect(holdings.fetching()).toEqual([])
      expect(holdings.held).toEqual([])
      expect(pins).toBe(1) // no try could succeed: none more
      expect(events).toContainEqual({ level: 'error', text: `keeping model ${model} failed: ${model} is larger than 302039040 bytes` })
    } finally {
      await holdings.stop()
    }
  })
})

describe('model holdings on chain', () => {
  let chain: TestChain
  let holdings: ModelHoldings | undefined

  beforeEach(async () => {
    chain = await startChain({ accounts: 2 })
    await registerNodes([chain.clients[1]], STAKE)
  })

  afterEach(async () => {
    await holdings?.stop()
    holdings = undefined
    await chain.stop()
  })

  it('records a model kept from the start although its first records fail (RPC down), and tells the operator once', async () => {
    const node = chain.clients[1]
    const address = await node.address()
    const flaky = announceFailing(node, 2)
    const events: Array<{ level: string, text: string }> = []
    holdings = createModelHoldings({ store: { pin: async () => {} }, chain: flaky, address, events: { push: e => { events.push(e) } } },
      { models: ['sdxl-base-1.0'], retryMs: 20, maxRetryMs: 40 })
    holdings.start()
    await waitFor(() => holdings?.models()[0]?.announced, { timeoutMs: 30_000, what: 'the model recorded on chain' })
    expect(flaky.tries()).toBe(3)
    expect((await chain.clients[0].modelHolding('sdxl-base-1.0', address)).held).toBe(true)
    const errors = events.filter(e => e.level === 'error')
    expect(errors).toHaveLength(1)
    expect(errors[0].text).toMatch(/cannot record model sdxl-base-1.0 on chain yet \(connect ECONNREFUSED/)
    expect(events.at(-1)?.text).toBe('model sdxl-base-1.0 is recorded on chain as held by this node')
  }, 60_000)

  it('keeps within the registry\'s 16 records: an earlier run\'s records go at start, the model fetched longest ago makes room, --model models stay; a record the registry refuses is not tried again', async () => {
    const node = chain.clients[1]
    const address = await node.address()
    const job = (m: string): { jobId: string, spec: { requirements: { minVramGb: number, modelId: string } } } =>
      ({ jobId: `0x${'1'.repeat(64)}`, spec: { requirements: { minVramGb: 0, modelId: m } } })
    const records = async (): Promise<string[]> => (await node.modelRecords(address)).sort()
    const labels = Array.from({ length: 16 }, (_, i) => `model-${String(i).padStart(2, '0')}`)
    // an earlier run kept 16 models
    holdings = createModelHoldings({ store: { pin: async () => {} }, chain: node, address }, { models: labels, retryMs: 20, maxRetryMs: 40 })
    holdings.start()
    await waitFor(() => holdings?.models().every(m => m.announced) === true && holdings.models().length === 16 ? true : undefined, { timeoutMs: 60_000, what: '16 models recorded' })
    await holdings.stop()
    expect(await records()).toEqual(labels)

    // this run keeps one of them: the other 15 records are dropped before anything is recorded
    const events: Array<{ level: string, text: string }> = []
    holdings = createModelHoldings({ store: { pin: async () => {} }, chain: node, address, events: { push: e => { events.push(e) } } },
      { models: [labels[0]], retryMs: 20, maxRetryMs: 40 })
    holdings.start()
    await waitFor(async () => (await records()).length === 1 ? true : undefined, { timeoutMs: 60_000, what: 'the earlier run\'s records dropped' })
    expect(await records()).toEqual([labels[0]])
    expect(events.filter(e => e.text.startsWith('dropped the on-chain record of model '))).toHaveLength(15)
    // 15 models fetched for jobs fill the 16 records; a 16th fetched one drops the record of the first fetched, never
    // the one kept with --model
    const fetched = Array.from({ length: 16 }, (_, i) => `ipfs://bafyfetched${String(i).padStart(2, '0')}`)
    for (const m of fetched.slice(0, 15)) holdings.acquired(job(m))
    await waitFor(async () => (await records()).length === 16 ? true : undefined, { timeoutMs: 60_000, what: '16 records' })
    holdings.acquired(job(fetched[15]))
    await waitFor(() => holdings?.models().find(m => m.modelId === fetched[15])?.announced === true ? true : undefined, { timeoutMs: 60_000, what: 'the 17th model recorded' })
    expect(await records()).toEqual([labels[0], ...fetched.slice(1)].sort())
    expect(holdings.held).not.toContain(fetched[0])
    await holdings.stop()

    // 16 models kept with --model fill the records: a model fetched for a job cannot be recorded, and is not tried again
    const flaky = announceFailing(node, 0)
    const errors: string[] = []
    holdings = createModelHoldings({ store: { pin: async () => {} }, chain: flaky, address, events: { push: e => { if (e.level === 'error') errors.push(e.text) } } },
      { models: labels, retryMs: 20, maxRetryMs: 40 })
    holdings.start()
    await waitFor(async () => (await records()).join() === labels.join() && holdings?.models().every(m => m.announced) === true ? true : undefined, { timeoutMs: 60_000, what: 'the 16 --model records' })
    const before = flaky.tries()
    holdings.acquired(job('ipfs://bafyonetoomany'))
    await waitFor(() => errors.length > 0 ? true : undefined, { timeoutMs: 30_000, what: 'the refusal told' })
    expect(errors).toEqual(['holding model ipfs://bafyonetoomany failed: the registry records at most 16 models per node, and the models kept with --model fill them'])
    expect(flaky.tries() - before).toBe(1)
  }, 180_000)
})
