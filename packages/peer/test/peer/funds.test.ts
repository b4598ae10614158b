import { deploy, createProvider } from '@jobmesh/contracts'
import { Wallet, parseEther } from 'ethers'
import { afterEach, describe, expect, it } from 'vitest'
import { workerAnvil } from '@jobmesh/testkit/anvil'
import { createPeer } from '../../src/peer.js'
import type { Anvil } from '@jobmesh/contracts'

let anvil: Anvil | undefined

afterEach(async () => {
  await anvil?.stop()
  anvil = undefined
})

describe('a peer whose wallet has no ETH', () => {
  it('fails to start with one line naming the wallet, its balance and what it needs', async () => {
    anvil = await workerAnvil({ accounts: 2 })
    const provider = createProvider(anvil.rpcUrl, { chainId: anvil.chainId })
    const deployment = await deploy(new Wallet(anvil.accounts[0].privateKey, provider))
    provider.destroy()
    const empty = Wallet.createRandom()
    const failed = createPeer({
      listen: ['/ip4/127.0.0.1/tcp/0'],
      process: false,
      chain: { rpcUrl: anvil.rpcUrl, privateKey: empty.privateKey, deployment, stake: parseEther('0.1') }
    })
    await expect(failed).rejects.toMatchObject({
      name: 'InsufficientFundsError',
      message: expect.stringMatching(new RegExp(`^wallet ${empty.address} has 0\\.0 ETH, needs 0\\.1 stake \\+ about 0\\.\\d+ ETH of gas at the chain's fee now \\(its start and first duties\\)$`))
    })
  })

  it('says the same, before any transaction, when the wallet holds the stake but not the gas of its transactions', async () => {
    anvil = await workerAnvil({ accounts: 2 })
    const provider = createProvider(anvil.rpcUrl, { chainId: anvil.chainId })
    const funder = new Wallet(anvil.accounts[0].privateKey, provider)
    const deployment = await deploy(funder)
    const short = Wallet.createRandom()
    const stake = parseEther('0.1')
    await (await funder.sendTransaction({ to: short.address, value: stake + 1000n })).wait()
    provider.destroy()
    const failed = createPeer({
      listen: ['/ip4/127.0.0.1/tcp/0'],
      process: false,
      chain: { rpcUrl: anvil.rpcUrl, privateKey: short.privateKey, deployment, stake }
    })
    // the stake and a little gas, not the registration's: refused before any transaction (it sent the seed commitment,
    // then the registration failed on the node's "insufficient funds for intrinsic transaction cost")
    const err = await failed.then(() => undefined, (e: Error) => e)
    expect(err?.name).toBe('InsufficientFundsError')
    expect(err?.message).toMatch(new RegExp(`^wallet ${short.address} has 0\\.100000000000001 ETH, needs 0\\.1 stake \\+ about 0\\.\\d+ ETH of gas at the chain's fee now \\(its start and first duties\\)$`))
    const check = createProvider(anvil.rpcUrl, { chainId: anvil.chainId })
    expect(await check.getTransactionCount(short.address)).toBe(0)
    check.destroy()
  })
})
