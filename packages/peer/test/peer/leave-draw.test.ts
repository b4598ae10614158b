import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { nodeRegistryAbi, pollUntil } from '@jobmesh/contracts'
import { registerNodes, startChain } from '@jobmesh/testkit/anvil'
import { Contract, JsonRpcProvider, toQuantity } from 'ethers'
import type { TransactionLike } from 'ethers'
import { afterEach, describe, expect, it } from 'vitest'
import { leaveDraw } from '../../src/settlement/index.js'
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

  it('a start that tops up a slashed stake names the slash (a node killed while drawn finds why its stake fell)', async () => {
    chain = await startChain({ accounts: 2 })
    dir = await mkdtemp(join(tmpdir(), 'jobmesh-leave-draw-'))
    const c = chain
    const address = c.anvil.accounts[1].address
    peer = await chainPeer(c, { dataDir: dir })
    const stake = (await c.clients[0].nodeInfo(address)).stake
    expect(peer.registration?.slashes).toEqual([])
    await peer.stop()
    peer = undefined
    // the escrow slashes it while it is down (here the escrow's address itself, impersonated on anvil: the slash of a
    // missed seed needs a job drawn while the node is down, seeds.test.ts)
    const rpc = new JsonRpcProvider(c.anvil.rpcUrl, c.anvil.chainId, { staticNetwork: true })
    try {
      await rpc.send('anvil_impersonateAccount', [c.deployment.jobEscrow])
      await rpc.send('anvil_setBalance', [c.deployment.jobEscrow, toQuantity(10n ** 18n)])
      const registry = new Contract(c.deployment.nodeRegistry, nodeRegistryAbi, await rpc.getSigner(c.deployment.jobEscrow))
      await (await registry.getFunction('slash')(address, stake / 4n)).wait()
      await rpc.send('anvil_stopImpersonatingAccount', [c.deployment.jobEscrow])
    } finally {
      rpc.destroy()
    }
    peer = await chainPeer(c, { dataDir: dir })
    expect(peer.registration).toMatchObject({ stakeAdded: stake / 4n, stake })
    expect(peer.registration?.slashes).toEqual([expect.objectContaining({ amount: stake / 4n, stakeLeft: stake - stake / 4n })])
    expect((await c.clients[0].nodeInfo(address)).stake).toBe(stake)
  })
})

describe('leaveDraw after a resume still in the pool', () => {
  it('a stop whose pause finds the node paused while a resume of its wallet is not mined yet pauses after it (that resume left a stopped node in the draw)', async () => {
    // a block every 2 s: a resume sent right after a block waits in the pool while the stop pauses
    chain = await startChain({ accounts: 2, blockTime: 2 })
    const [node] = chain.clients.slice(1)
    await registerNodes([node], 10n ** 17n)
    const me = await node.address()
    // estimates read the latest block, as geth's `eth_estimateGas` does by default (Polygon's nodes); anvil's read the
    // pending state when no block is named (ethers names none), where the resume in the pool is already applied and
    // the race below cannot happen
    const provider = node.provider as JsonRpcProvider
    provider.estimateGas = async (req) => BigInt(await provider.send('eth_estimateGas', [provider.getRpcTransaction(req as TransactionLike<string>), 'latest']))
    // the registry paused the node (a missed task); the pause duty's resume goes out just before the operator's Ctrl-C
    await node.pause()
    const mined = await node.blockNumber()
    await pollUntil(async () => (await node.blockNumber()) > mined ? true : undefined, { pollMs: 50, timeoutMs: 10_000, what: 'a new block' })
    const resuming = node.resume()
    await pollUntil(async () => (await node.provider.getTransactionCount(me, 'pending')) > (await node.provider.getTransactionCount(me, 'latest')) ? true : undefined,
      { pollMs: 20, timeoutMs: 5_000, what: 'the resume in the pool' })
    expect((await node.nodeInfo()).paused).toBe(true)

    expect(await leaveDraw(node)).toBe(true)
    const resumed = await resuming
    expect((await node.nodeInfo()).paused).toBe(true)
    // paused after the resume: in a later block, or later in the same one
    const resumeLog = resumed.events.find(e => e.name === 'NodeResumed')
    const pauses = await node.findEvents({ names: ['NodePaused'], topic1: me, fromBlock: resumed.blockNumber })
    expect(pauses.filter(e => e.blockNumber > resumed.blockNumber || e.logIndex > (resumeLog?.logIndex ?? Infinity))).toHaveLength(1)
  }, 60_000)
})
