import { createChainClient, createProvider, deploy } from '@jobmesh/contracts'
import { workerAnvil } from '@jobmesh/testkit/anvil'
import { Wallet, parseEther } from 'ethers'
import { afterEach, describe, expect, it } from 'vitest'
import { createPeer } from '../../src/peer.js'
import type { Anvil } from '@jobmesh/contracts'
import type { Peer } from '../../src/peer.js'

let anvil: Anvil | undefined
let running: Peer | undefined

afterEach(async () => {
  await running?.stop()
  running = undefined
  await anvil?.stop()
  anvil = undefined
})

describe('a start refused because another data dir runs the wallet\'s node', () => {
  it('leaves that node in the draw: the refused start paused the running node (NodeRegistry.pause) and zeroed its incentive share', async () => {
    anvil = await workerAnvil({ accounts: 2 })
    const provider = createProvider(anvil.rpcUrl, { chainId: anvil.chainId })
    const deployment = await deploy(new Wallet(anvil.accounts[0].privateKey, provider))
    const reader = createChainClient({ provider, signer: new Wallet(anvil.accounts[0].privateKey), deployment })
    const node = anvil.accounts[1].address
    const chain = { rpcUrl: anvil.rpcUrl, privateKey: anvil.accounts[1].privateKey, deployment, stake: parseEther('0.1') }
    try {
      running = await createPeer({ listen: ['/ip4/127.0.0.1/tcp/0'], process: false, vramGb: 8, chain })
      // the same key in a second node (another data dir, so another PeerId): refused before any transaction
      const err = await createPeer({ listen: ['/ip4/127.0.0.1/tcp/0'], process: false, vramGb: 8, chain })
        .then(async (peer) => { await peer.stop(); return undefined }, (e: Error) => e)
      expect(err?.name).toBe('WalletInUseError')
      const info = await reader.nodeInfo(node)
      expect(info.registered).toBe(true)
      expect(info.paused).toBe(false)
      expect(info.eligible).toBe(true)
    } finally {
      provider.destroy()
    }
  })
})
