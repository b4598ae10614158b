import { startChain } from '@jobmesh/testkit/anvil'
import { afterEach, describe, expect, it } from 'vitest'
import { chainClock } from '../../src/settlement/index.js'
import type { TestChain } from '@jobmesh/testkit/anvil'

let chain: TestChain | undefined

afterEach(async () => {
  await chain?.stop()
  chain = undefined
})

describe('chainClock', () => {
  it('tells the chain\'s time, which deadlines are read against, also when it is not this machine\'s', async () => {
    chain = await startChain({ accounts: 1 })
    const clock = chainClock({ chain: chain.clients[0] })
    // before a read: this machine's clock
    expect(Math.abs(clock.now() - Date.now())).toBeLessThan(50)
    await clock.refresh()
    // a fresh anvil's blocks carry this machine's time, to the second
    expect(Math.abs(clock.now() - Date.now())).toBeLessThan(2_500)
    // the chain's time moved an hour on (a chain whose clock runs ahead of this machine's)
    await chain.clients[0].provider.send('evm_increaseTime', [3600])
    await chain.clients[0].provider.send('evm_mine', [])
    await clock.refresh()
    expect(Math.abs(clock.now() - (Date.now() + 3_600_000))).toBeLessThan(2_500)
    clock.stop()
  })
})
