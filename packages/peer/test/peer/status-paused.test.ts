import { stopList } from '@jobmesh/testkit'
import { startChain } from '@jobmesh/testkit/anvil'
import { afterEach, describe, expect, it } from 'vitest'
import { chainPeer } from '../settlement/funded-job.js'
import type { OwnPause } from '../../src/settlement/index.js'

const running = stopList()
afterEach(running.stopAll)

describe('a running peer\'s report', () => {
  it('says why its node is paused while the pause duty left it so, and no longer once the node is back in the draw', async () => {
    const chain = running.add(await startChain({ accounts: 3 }))
    const peer = running.add(await chainPeer(chain))
    const node = peer.chain
    const settlement = peer.settlement
    if (node == null || settlement == null) throw new Error('a peer with a chain has a chain client and a settlement')
    // the registry paused the node (here: its own wallet, standing in for a missed task) and the duty left it paused
    await node.pause()
    const stayed: OwnPause = { cause: 'task', pausedBlock: await node.blockNumber(), inARow: 3, outcome: 'stayed' }
    settlement.dispatchEvent(new CustomEvent('paused', { detail: stayed }))
    const paused = await peer.report()
    expect(paused.chain?.paused).toBe(true)
    expect(paused.chain?.stayedPaused).toEqual({ cause: 'task', pausedBlock: stayed.pausedBlock, inARow: 3 })
    // the operator resumed it (a restart would): back in the draw, nothing left to explain
    await node.resume()
    const resumed = await peer.report()
    expect(resumed.chain?.paused).toBe(false)
    expect(resumed.chain?.stayedPaused).toBeUndefined()
  })
})
