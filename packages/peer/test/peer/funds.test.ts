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
      message: `wallet ${empty.address} has 0.0 ETH, needs 0.1 stake + gas`
    })
  })

  it('says the same when the wallet holds the stake but not the gas of its transactions', async () => {
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
    // the seed commitment's gas leaves it less than the stake: the registration fails, and says why in one line
    const err = await failed.then(() => undefined, (e: Error) => e)
    expect(err?.name).toBe('InsufficientFundsError')
    expect(err?.message).toMatch(new RegExp(`^wallet ${short.address} has 0\\.09\\d+ ETH, needs 0\\.1 stake \\+ gas$`))
  })
})
