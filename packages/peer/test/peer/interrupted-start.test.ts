import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createChainClient, createProvider, deploy } from '@jobmesh/contracts'
import { flakyRpc, workerAnvil } from '@jobmesh/testkit/anvil'
import { Wallet, parseEther } from 'ethers'
import { afterEach, describe, expect, it } from 'vitest'
import { createPeer } from '../../src/peer.js'
import type { Anvil, ChainClient, Deployment } from '@jobmesh/contracts'
import type { FlakyRpc } from '@jobmesh/testkit/anvil'
import type { Peer } from '../../src/peer.js'

let anvil: Anvil | undefined
let proxy: FlakyRpc | undefined
let running: Peer | undefined

afterEach(async () => {
  await running?.stop()
  running = undefined
  await proxy?.stop()
  proxy = undefined
  await anvil?.stop()
  anvil = undefined
})

/** A worker anvil with the contracts deployed by account 0, a reader of the chain, and account 1's address (the node). */
async function deployed (): Promise<{ chainAnvil: Anvil, provider: ReturnType<typeof createProvider>, deployment: Deployment, reader: ChainClient, node: string }> {
  const chainAnvil = await workerAnvil({ accounts: 3 })
  anvil = chainAnvil
  const provider = createProvider(chainAnvil.rpcUrl, { chainId: chainAnvil.chainId })
  const deployment = await deploy(new Wallet(chainAnvil.accounts[0].privateKey, provider))
  const reader = createChainClient({ provider, signer: new Wallet(chainAnvil.accounts[0].privateKey), deployment })
  return { chainAnvil, provider, deployment, reader, node: chainAnvil.accounts[1].address }
}

describe('a start cut short after it registered the node', () => {
  it('takes the node out of the verifier draw: left in it with nothing running, it was drawn, missed its seed and was slashed', async () => {
    const { chainAnvil, provider, deployment, reader, node } = await deployed()
    // the start's transactions: the seed commitment, the registration, then (the node registered) the incentive
    // share's record: Ctrl-C then, as an operator who sees a wrong --vram go by
    const interrupt = new AbortController()
    // a proxy that fails nothing, counting the transactions it forwards (ethers sends one request at a time here)
    let sent = 0
    proxy = await flakyRpc(chainAnvil.rpcUrl, 'eth_sendRawTransaction', {
      onForward: (call) => { if (call.method === 'eth_sendRawTransaction' && ++sent === 3) interrupt.abort(new Error('interrupted (SIGINT)')) }
    })
    const rpcUrl = proxy.url
    const started = createPeer({
      listen: ['/ip4/127.0.0.1/tcp/0'],
      process: false,
      vramGb: 8,
      signal: interrupt.signal,
      chain: { rpcUrl, privateKey: chainAnvil.accounts[1].privateKey, deployment, stake: parseEther('0.1') }
    })
    try {
      const err = await started.then(async (peer) => { await peer.stop(); return undefined }, (e: Error) => e)
      expect(interrupt.signal.aborted).toBe(true)
      expect(err).toBeDefined()
      const info = await reader.nodeInfo(node)
      // registered by the start, and out of the draw (it was left unpaused and eligible)
      expect({ registered: info.registered, paused: info.paused, eligible: info.eligible }).toEqual({ registered: true, paused: true, eligible: false })
    } finally {
      provider.destroy()
    }
  })
})

describe('a start refused because another data dir runs the wallet\'s node', () => {
  it('leaves that node in the draw: the refused start paused the running node (NodeRegistry.pause) and zeroed its incentive share', async () => {
    const { chainAnvil, provider, deployment, reader, node } = await deployed()
    const chain = { rpcUrl: chainAnvil.rpcUrl, privateKey: chainAnvil.accounts[1].privateKey, deployment, stake: parseEther('0.1') }
    try {
      running = await createPeer({ listen: ['/ip4/127.0.0.1/tcp/0'], process: false, vramGb: 8, chain })
      // the same key in a second node (another data dir, so another PeerId): refused before any transaction
      const err = await createPeer({ listen: ['/ip4/127.0.0.1/tcp/0'], process: false, vramGb: 8, chain })
        .then(async (peer) => { await peer.stop(); return undefined }, (e: Error) => e)
      expect(err?.name).toBe('WalletInUseError')
      const info = await reader.nodeInfo(node)
      expect({ registered: info.registered, paused: info.paused, eligible: info.eligible }).toEqual({ registered: true, paused: false, eligible: true })
    } finally {
      provider.destroy()
    }
  })
})

describe('a start of a data dir whose PeerId another wallet registered', () => {
  it('is refused before any transaction, naming that wallet (the verifier seed\'s commitment was sent first, from the wrong wallet)', async () => {
    const { chainAnvil, provider, deployment } = await deployed()
    const dataDir = await mkdtemp(join(tmpdir(), 'jobmesh-peerid-'))
    const chain = (i: number): { rpcUrl: string, privateKey: string, deployment: Deployment, stake: bigint } =>
      ({ rpcUrl: chainAnvil.rpcUrl, privateKey: chainAnvil.accounts[i].privateKey, deployment, stake: parseEther('0.1') })
    try {
      const first = await createPeer({ dataDir, listen: ['/ip4/127.0.0.1/tcp/0'], process: false, vramGb: 8, chain: chain(1) })
      await first.stop()
      const stranger = chainAnvil.accounts[2].address
      const nonce = await provider.getTransactionCount(stranger)
      const err = await createPeer({ dataDir, listen: ['/ip4/127.0.0.1/tcp/0'], process: false, vramGb: 8, chain: chain(2) })
        .then(async (peer) => { await peer.stop(); return undefined }, (e: Error) => e)
      expect(err?.name).toBe('PeerIdInUseError')
      expect(err?.message).toContain(`is registered by wallet ${chainAnvil.accounts[1].address}, not by ${stranger}`)
      expect(await provider.getTransactionCount(stranger)).toBe(nonce)
    } finally {
      provider.destroy()
      await rm(dataDir, { recursive: true, force: true })
    }
  })
})
