import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { registerNodes, startChain } from '@jobmesh/testkit/anvil'
import { waitFor } from '@jobmesh/testkit'
import { connect, createProvider } from '@jobmesh/contracts'
import { parseEther, Wallet } from 'ethers'
import { afterEach, describe, expect, it } from 'vitest'
import { bondCapacity } from '../../src/settlement/index.js'
import { announceServedJob, chainPeer } from './funded-job.js'
import type { Peer } from '../../src/peer.js'
import type { TestChain } from '@jobmesh/testkit/anvil'

let chain: TestChain | undefined
let peer: Peer | undefined
let dir = ''

afterEach(async () => {
  await peer?.stop()
  peer = undefined
  if (dir !== '') await rm(dir, { recursive: true, force: true })
  dir = ''
  await chain?.stop()
  chain = undefined
})

describe('bondCapacity', () => {
  it('a node works only on jobs whose results it could submit: their bond (2 x the fee) within its free stake', async () => {
    chain = await startChain({ accounts: 2 })
    const node = chain.clients[1]
    const [key] = await registerNodes([node], parseEther('1'))
    const short: Array<[string, bigint, bigint]> = []
    let grown = 0
    const bonds = bondCapacity({ chain: node }, { onShort: (job, bond, free) => { short.push([job.jobId, bond, free]) }, onGrowth: () => { grown++ } })
    try {
      // before a read: nothing held back
      expect(bonds.canBond({ jobId: '0x01', fee: parseEther('100') })).toBe(true)
      await bonds.refresh()
      expect(await node.submissionBond(parseEther('1'))).toBe(parseEther('2'))
      // a 1 ETH job locks 2 ETH: more than this node's 1 ETH stake; told once
      expect(bonds.canBond({ jobId: '0x01', fee: parseEther('1') })).toBe(false)
      expect(bonds.canBond({ jobId: '0x01', fee: parseEther('1') })).toBe(false)
      expect(short).toEqual([['0x01', parseEther('2'), parseEther('1')]])
      expect(bonds.canBond({ jobId: '0x02', fee: parseEther('0.5') })).toBe(true)
      // the operator stakes 3 ETH: the stake is read again (it was too small, and is a second old) and the job taken
      await node.ensureRegistered({ peerId: peerIdFromPrivateKey(key).toString(), privateKey: key, gpuModel: 'cpu', vramGb: 1, stake: parseEther('3') })
      await waitFor(() => bonds.canBond({ jobId: '0x01', fee: parseEther('1') }), { what: 'the 1 ETH job bondable', timeoutMs: 10_000 })
      expect(grown).toBe(1)
    } finally {
      bonds.stop()
    }
  })

  it('a node that asked to exit bonds nothing: the registry locks no stake of an exiting node', async () => {
    chain = await startChain({ accounts: 2 })
    const node = chain.clients[1]
    await registerNodes([node], parseEther('5'))
    const bonds = bondCapacity({ chain: node })
    try {
      await bonds.refresh()
      expect(bonds.canBond({ jobId: '0x01', fee: parseEther('1') })).toBe(true)
      const provider = createProvider(chain.anvil.rpcUrl, { chainId: chain.anvil.chainId })
      try {
        const registry = connect(chain.deployment, new Wallet(chain.anvil.accounts[1].privateKey, provider)).nodeRegistry
        await (await registry.getFunction('requestExit')()).wait()
      } finally {
        provider.destroy()
      }
      expect(await node.freeStake()).toBe(0n)
      await bonds.refresh()
      expect(bonds.canBond({ jobId: '0x01', fee: parseEther('1') })).toBe(false)
    } finally {
      bonds.stop()
    }
  })

  it('a peer of an exiting node starts as it is, whatever --stake asks, takes no job and says why', async () => {
    chain = await startChain({ accounts: 3 })
    dir = await mkdtemp(join(tmpdir(), 'jobmesh-exiting-'))
    // one data dir: the same PeerId, which the wallet registered
    peer = await chainPeer(chain, { dataDir: dir })
    await peer.stop()
    await chain.clients[1].requestExit()
    // a stake its wallet could never pay: nothing is added to an exiting node, so nothing is asked of the wallet
    peer = await chainPeer(chain, { dataDir: dir, chain: { rpcUrl: chain.anvil.rpcUrl, privateKey: chain.anvil.accounts[1].privateKey, deployment: chain.deployment, stake: parseEther('1000000') } })
    expect(peer.registration).toMatchObject({ exiting: true, stakeAdded: 0n, stake: parseEther('0.1') })
    const { job, owned } = await announceServedJob(peer, chain.clients[0], 3)
    const told = await waitFor(() => peer?.events.recent().find(e => e.kind === 'job:waiting' && e.jobId === job.jobId), { what: 'the job:waiting event', timeoutMs: 10_000 })
    expect(told.text).toContain('this node asked to exit, so it takes no job')
    expect(owned).toEqual([])
  })
  it('a running peer whose node asks to exit (jobmesh exit beside it) says so of the jobs it leaves alone, not that its stake is short', async () => {
    chain = await startChain({ accounts: 3 })
    dir = await mkdtemp(join(tmpdir(), 'jobmesh-exiting-running-'))
    peer = await chainPeer(chain, { dataDir: dir })
    await chain.clients[1].requestExit()
    const { job } = await announceServedJob(peer, chain.clients[0], 3)
    // the bond's line (beside the verifier supply's: this chain has one node)
    const told = await waitFor(() => peer?.events.recent().find(e => e.kind === 'job:waiting' && e.jobId === job.jobId && /asked to exit|free stake/.test(e.text)),
      { what: 'the job:waiting event of the bond', timeoutMs: 20_000 })
    expect(told.text).toContain('this node asked to exit, so it takes no job')
  })
})
