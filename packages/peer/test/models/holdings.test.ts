import { registerNodes, startChain } from '@jobmesh/testkit/anvil'
import { waitFor } from '@jobmesh/testkit'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createModelHoldings } from '../../src/models/index.js'
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
    await waitFor(() => holdings?.models()[0].announced, { timeoutMs: 30_000, what: 'the model recorded on chain' })
    expect(flaky.tries()).toBe(3)
    expect((await chain.clients[0].modelHolding('sdxl-base-1.0', address)).held).toBe(true)
    const errors = events.filter(e => e.level === 'error')
    expect(errors).toHaveLength(1)
    expect(errors[0].text).toMatch(/cannot record model sdxl-base-1.0 on chain yet \(connect ECONNREFUSED/)
    expect(events.at(-1)?.text).toBe('model sdxl-base-1.0 is recorded on chain as held by this node')
  }, 60_000)
})
