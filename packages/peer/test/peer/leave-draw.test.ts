import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startChain } from '@jobmesh/testkit/anvil'
import { afterEach, describe, expect, it } from 'vitest'
import { chainPeer } from '../settlement/funded-job.js'
import type { Peer } from '../../src/peer.js'
import type { TestChain } from '@jobmesh/testkit/anvil'

let chain: TestChain | undefined
let peer: Peer | undefined
let dir = ''

afterEach(async () => {
  await peer?.stop()
  peer = undefined
  await chain?.stop()
  chain = undefined
  if (dir !== '') await rm(dir, { recursive: true, force: true })
  dir = ''
})

describe('a peer that stops leaves the verifier draw', () => {
  it('pauses its node in the registry at a clean stop (its incentive share recorded as 0), and the next start resumes it', async () => {
    chain = await startChain({ accounts: 2 })
    // one data dir: the same PeerId at both starts (the registry binds the wallet to it)
    dir = await mkdtemp(join(tmpdir(), 'jobmesh-leave-draw-'))
    const c = chain
    const start = async (): Promise<Peer> => await chainPeer(c, { dataDir: dir })
    const address = c.anvil.accounts[1].address
    peer = await start()
    expect((await c.clients[0].nodeInfo(address)).paused).toBe(false)
    expect(c.deployment.incentivePool).toBeDefined()
    expect((await c.clients[0].incentiveAccount(address)).share).toBeGreaterThan(0)
    await peer.stop()
    peer = undefined
    // stopped: out of the draw (a node drawn while down misses its seed and is slashed the bond), and its incentive
    // share recorded as 0 (it earns nothing while down)
    expect((await c.clients[0].nodeInfo(address)).paused).toBe(true)
    expect(await c.clients[0].activeNodes()).toBe(0)
    expect((await c.clients[0].incentiveAccount(address)).share).toBe(0)
    peer = await start()
    expect(peer.registration?.resumed).toBe(true)
    expect((await c.clients[0].nodeInfo(address)).paused).toBe(false)
    expect(await c.clients[0].activeNodes()).toBe(1)
    expect((await c.clients[0].incentiveAccount(address)).share).toBeGreaterThan(0)
  })
})
