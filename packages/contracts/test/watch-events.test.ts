import { describe, expect, it } from 'vitest'
import { watchEvents } from '../src/actions/events/watch-events.js'
import type { ChainContext } from '../src/client/context.js'

describe('watchEvents', () => {
  it('asks a range again after its eth_getLogs failed: the range\'s events are not skipped', async () => {
    const asked: Array<[number, number]> = []
    let failures = 1
    const controller = new AbortController()
    const client = {
      provider: {
        getLogs: async (filter: { fromBlock: number, toBlock: number }) => {
          asked.push([filter.fromBlock, filter.toBlock])
          if (failures-- > 0) throw new Error('503 Service Unavailable')
          // the second answer ends the watch
          controller.abort()
          return []
        }
      },
      deployment: { jobEscrow: '0x' + '11'.repeat(20), nodeRegistry: '0x' + '22'.repeat(20), chainId: 31337 },
      read: async <T>(_what: string, fn: () => Promise<T>): Promise<T> => await fn(),
      blockNumber: async () => 10,
      pollMs: 5,
      logBlockRange: 1000
    } as unknown as ChainContext
    for await (const e of watchEvents(client, { fromBlock: 5, signal: controller.signal })) expect(e).toBeUndefined()
    expect(asked).toEqual([[5, 10], [5, 10]])
  }, 10_000)
})
