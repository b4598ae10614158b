import { requireWallet } from './wallet-options.js'
import type { WalletOptions } from './wallet-options.js'
import type { ChainClient, Deployment } from '@jobmesh/contracts'

/**
 * Runs `fn` with a chain client of the options' wallet, once its deployment is checked (it names this chain and its
 * contracts are there: a wrong escrow address is said as such), and closes the client after.
 *
 * @throws UsageError (bad or missing options), RpcUnreachableError and ChainMismatchError (the endpoint's probe), the
 * deployment's and `fn`'s errors
 */
export async function withWalletChain<T> (opts: WalletOptions, fn: (chain: ChainClient) => Promise<T>): Promise<T> {
  const wallet = await requireWallet(opts)
  const { Wallet } = await import('ethers')
  const { createChainClient } = await import('@jobmesh/contracts')
  await checkDeployment(wallet)
  const chain = createChainClient({ rpcUrl: wallet.rpcUrl, signer: new Wallet(wallet.privateKey), deployment: wallet.deployment })
  try {
    return await fn(chain)
  } finally {
    chain.provider.destroy()
  }
}

/**
 * The RPC endpoint answers, on the deployment's chain (`start` checks it before it opens anything; a peer's start
 * checks the same, and more, once its stores are open). @throws RpcUnreachableError, ChainMismatchError, AbortError
 */
export async function checkChainId (chain: { rpcUrl: string, deployment: Pick<Deployment, 'chainId'> }, signal?: AbortSignal): Promise<void> {
  const { ChainMismatchError, probeChainId } = await import('@jobmesh/contracts')
  const chainId = await probeChainId(chain.rpcUrl, { signal })
  if (chainId !== chain.deployment.chainId) {
    throw new ChainMismatchError(`the deployment is for chain ${chain.deployment.chainId}, the provider is on chain ${chainId}: ` +
      '--rpc and --deployment name different networks')
  }
}

/**
 * {@link checkChainId} (a plain probe first: it says what an unreachable endpoint's trouble is, refused, unknown host,
 * no TLS, in one line), then the deployment's contracts are there and are what it names (a wrong escrow address is
 * said as such): what `start` checks before it makes the data dir, and the wallet commands before they act.
 * @throws as checkChainId, and verifyDeployment's errors
 */
export async function checkDeployment (chain: { rpcUrl: string, deployment: Deployment }, signal?: AbortSignal): Promise<void> {
  await checkChainId(chain, signal)
  const { createProvider, verifyDeployment } = await import('@jobmesh/contracts')
  const provider = createProvider(chain.rpcUrl, { chainId: chain.deployment.chainId })
  try {
    await verifyDeployment(chain.deployment, provider, signal)
  } finally {
    provider.destroy()
  }
}
