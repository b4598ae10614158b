import { createChainClient, createProvider } from '../src/index.js'
import { Wallet } from 'ethers'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { registerNodes, startChain } from '@jobmesh/testkit/anvil'
import type { ChainClient } from '../src/index.js'
import type { TestChain } from '@jobmesh/testkit/anvil'

const MODEL = 'ipfs://bafkreimodelweights'

describe('model holders on chain (ModelRegistry) through the chain client', () => {
  let chain: TestChain
  let extra: ChainClient | undefined

  beforeEach(async () => {
    chain = await startChain({ accounts: 4 })
  })
  afterEach(async () => {
    extra?.provider.destroy()
    extra = undefined
    await chain.stop()
  })

  it('announces, lists holders, prompts a node that finds its prompt by event, and drops', async () => {
    expect(chain.deployment.modelRegistry).toMatch(/^0x[0-9a-fA-F]{40}$/)
    const [a, b, c] = chain.clients.slice(1)
    await registerNodes([a, b, c], 10n ** 16n)
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
    const stranger = chain.client(1)
    await expect(stranger.announceModel(MODEL)).rejects.toMatchObject({ name: 'ChainRevertError', errorName: 'NotActive' })
    const { modelRegistry: _, ...older } = chain.deployment
    extra = createChainClient({
      provider: createProvider(chain.anvil.rpcUrl, { chainId: chain.anvil.chainId }), signer: new Wallet(chain.anvil.accounts[1].privateKey), deployment: older
    })
    await expect(extra.announceModel(MODEL)).rejects.toMatchObject({ name: 'NoModelRegistryError' })
    await expect(extra.modelHolding(MODEL)).rejects.toMatchObject({ name: 'NoModelRegistryError' })
    expect(await extra.modelPrompts(await extra.address())).toEqual([])
  })
})
