import { createChainClient, createProvider, deploy } from '../src/index.js'
import { generateKeyPair } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { Wallet } from 'ethers'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { workerAnvil } from '@jobmesh/testkit/anvil'
import type { Anvil, ChainClient, Deployment } from '../src/index.js'

const MODEL = 'ipfs://bafkreimodelweights'

describe('model holders on chain (ModelRegistry) through the chain client', () => {
  let anvil: Anvil
  let deployment: Deployment
  let clients: ChainClient[]

  const client = (i: number, d: Deployment = deployment): ChainClient => {
    const provider = createProvider(anvil.rpcUrl, { chainId: anvil.chainId })
    const c = createChainClient({ provider, signer: new Wallet(anvil.accounts[i].privateKey), deployment: d }, { pollMs: 50 })
    clients.push(c)
    return c
  }
  const registered = async (i: number): Promise<ChainClient> => {
    const c = client(i)
    const privateKey = await generateKeyPair('Ed25519')
    await c.ensureRegistered({ peerId: peerIdFromPrivateKey(privateKey).toString(), privateKey, gpuModel: 'RTX 4090', vramGb: 24, stake: 10n ** 16n })
    return c
  }

  beforeEach(async () => {
    clients = []
    anvil = await workerAnvil({ accounts: 4 })
    const provider = createProvider(anvil.rpcUrl, { chainId: anvil.chainId })
    deployment = await deploy(new Wallet(anvil.accounts[0].privateKey, provider))
  })
  afterEach(async () => {
    for (const c of clients) c.provider.destroy()
    await anvil.stop()
  })

  it('announces, lists holders, prompts a node that finds its prompt by event, and drops', async () => {
    expect(deployment.modelRegistry).toMatch(/^0x[0-9a-fA-F]{40}$/)
    const [a, b, c] = await Promise.all([registered(1), registered(2), registered(3)])
    const [addrA, addrB, addrC] = await Promise.all([a.address(), b.address(), c.address()])

    await a.announceModel(MODEL)
    expect(await a.modelHolding(MODEL)).toEqual({ modelId: MODEL, holders: 1, held: true, promptedAt: 0 })
    expect(await b.modelHolding(MODEL)).toMatchObject({ holders: 1, held: false })
    expect(await b.modelHolders(MODEL)).toEqual([addrA])
    await expect(a.announceModel(MODEL)).rejects.toMatchObject({ name: 'ChainRevertError', errorName: 'AlreadyHeld' })

    const sent = await a.promptModel(MODEL, [addrB])
    expect(sent.events.filter(e => e.name === 'ModelPrompted').map(e => e.args.node)).toEqual([addrB])
    const prompts = await b.modelPrompts(addrB)
    expect(prompts).toEqual([{ modelId: MODEL, node: addrB, by: addrA, blockNumber: sent.blockNumber }])
    expect(await c.modelPrompts(addrC)).toEqual([])
    expect((await b.modelHolding(MODEL)).promptedAt).toBeGreaterThan(0)
    // the prompted node fetched it and says so; it cannot be prompted again, nor prompt before its own cooldown
    await b.announceModel(MODEL)
    expect(await c.modelHolders(MODEL)).toEqual([addrA, addrB])
    await expect(a.promptModel(MODEL, [addrC])).rejects.toMatchObject({ name: 'ChainRevertError', errorName: 'PromptTooSoon' })
    await expect(b.promptModel(MODEL, [addrA])).rejects.toMatchObject({ name: 'ChainRevertError', errorName: 'NotPromptable' })

    await a.dropModel(MODEL)
    expect(await c.modelHolders(MODEL)).toEqual([addrB])
    await expect(a.dropModel(MODEL)).rejects.toMatchObject({ name: 'ChainRevertError', errorName: 'NotHeld' })
  })

  it('refuses a node that is not registered, and says so with a typed error on an older deployment', async () => {
    const stranger = client(1)
    await expect(stranger.announceModel(MODEL)).rejects.toMatchObject({ name: 'ChainRevertError', errorName: 'NotActive' })
    const { modelRegistry: _, ...older } = deployment
    const old = client(1, older)
    await expect(old.announceModel(MODEL)).rejects.toMatchObject({ name: 'NoModelRegistryError' })
    await expect(old.modelHolding(MODEL)).rejects.toMatchObject({ name: 'NoModelRegistryError' })
    expect(await old.modelPrompts(await old.address())).toEqual([])
  })
})
