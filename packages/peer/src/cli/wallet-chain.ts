import { requireWallet } from './wallet-options.js'
import type { WalletOptions } from './wallet-options.js'
import type { ChainClient } from '@jobmesh/contracts'

/**
 * Runs `fn` with a chain client of the options' wallet, once its deployment is checked (it names this chain and its
 * contracts are there: a wrong escrow address is said as such), and closes the client after.
 *
 * @throws UsageError (bad or missing options), the deployment's and `fn`'s errors
 */
export async function withWalletChain<T> (opts: WalletOptions, fn: (chain: ChainClient) => Promise<T>): Promise<T> {
  const wallet = await requireWallet(opts)
  const { Wallet } = await import('ethers')
  const { createChainClient, verifyDeployment } = await import('@jobmesh/contracts')
  const chain = createChainClient({ rpcUrl: wallet.rpcUrl, signer: new Wallet(wallet.privateKey), deployment: wallet.deployment })
  try {
    await verifyDeployment(wallet.deployment, chain.provider)
    return await fn(chain)
  } finally {
    chain.provider.destroy()
  }
}
