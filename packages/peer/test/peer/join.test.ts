import { createProvider, deploy } from '@jobmesh/contracts'
import { generateKeyPair } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { workerAnvil } from '@jobmesh/testkit/anvil'
import { Wallet, parseEther } from 'ethers'
import { afterEach, describe, expect, it } from 'vitest'
import { createPeer } from '../../src/peer.js'
import type { Anvil } from '@jobmesh/contracts'

let anvil: Anvil | undefined

afterEach(async () => {
  await anvil?.stop()
  anvil = undefined
})

describe('a peer whose bootstrap peers do not answer', () => {
  it('is refused before it registers: a verifier drawn with no peer to fetch from was slashed', async () => {
    anvil = await workerAnvil({ accounts: 2 })
    const provider = createProvider(anvil.rpcUrl, { chainId: anvil.chainId })
    const deployment = await deploy(new Wallet(anvil.accounts[0].privateKey, provider))
    // a peer's address where nothing listens
    const nobody = peerIdFromPrivateKey(await generateKeyPair('Ed25519')).toString()
    const bootstrap = `/ip4/127.0.0.1/tcp/1/p2p/${nobody}`
    const started = createPeer({
      listen: ['/ip4/127.0.0.1/tcp/0'],
      bootstrap: [bootstrap],
      process: false,
      chain: { rpcUrl: anvil.rpcUrl, privateKey: anvil.accounts[1].privateKey, deployment, stake: parseEther('0.1'), joinTimeoutMs: 1_500 }
    })
    const err = await started.then(() => undefined, (e: Error) => e)
    expect(err?.name).toBe('NoPeerReachableError')
    expect(err?.message).toMatch(new RegExp(`^none of the bootstrap peers answered within 2 s \\(${bootstrap}\\): the node was not registered or resumed`))
    // nothing sent: no seed commitment, no registration, no stake
    expect(await provider.getTransactionCount(anvil.accounts[1].address)).toBe(0)
    provider.destroy()
  })
})
